#!/usr/bin/env bash
# Runs one lockchaos configuration over several seeds and tallies the exit codes, for
# acceptance checks ("exits 1 for at least 9 of 10 seeds").
#   bash scripts/seeds.sh 10 --backend redlock --nemesis client-pause --fencing off
set -uo pipefail
n=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
declare -A tally
for seed in $(seq 1 "$n"); do
  node "$here/dist/src/cli/main.js" run "$@" --seed "$seed" >/tmp/lockchaos-seed.out 2>&1
  code=$?
  tally[$code]=$(( ${tally[$code]:-0} + 1 ))
  echo "seed $seed: exit $code  $(grep -aE '^  (mutual|lost|fencing)' /tmp/lockchaos-seed.out | awk '{print $1"="$2}' | tr '\n' ' ')"
done
for code in "${!tally[@]}"; do echo "exit $code: ${tally[$code]} of $n"; done
