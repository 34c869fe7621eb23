#!/usr/bin/env bash
# The first command on a fresh machine: everything from a checkout to a verdict.
# Makes sure a Docker engine answers (as root on Debian: installs docker.io and starts
# dockerd), installs the npm packages and builds when that was not done yet, then runs
# the gc-pause story unfenced (the node image is built on first use). The first time, on
# a fresh Debian machine with 2 cores, takes 4 to 10 minutes: the engine 20-40 s, npm ci
# 25-60 s, the build 20-60 s, the node image 2-6 min, the run ~40 s (quiet machine - busy
# one; test/fresh-machine/run.sh measures it); later runs start at once.
# Any further arguments go to `lockchaos run`, e.g. --fencing on.
set -euo pipefail
cd "$(dirname "$0")/.."
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 11) ? 0 : 1)' \
  || { echo "lockchaos: Node.js 20.11 or newer is needed (this is $(node --version))" >&2; exit 3; }
bash scripts/ensure-docker.sh
if [ ! -d node_modules ]; then
  echo "installing the npm packages (npm ci, about a minute)..."
  npm ci --no-audit --no-fund
fi
if [ ! -f dist/src/cli/main.js ]; then
  echo "building lockchaos (npm run build, about a minute)..."
  npm run build --silent
fi
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--scenario gc-pause --fencing off --seed 1)
exec node dist/src/cli/main.js run "${args[@]}"
