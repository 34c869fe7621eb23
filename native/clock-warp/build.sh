#!/usr/bin/env bash
# Builds the clock-warp helper: the stub (freestanding, position-independent, linked at
# 0) into a flat image, embedded in a static binary. Usage: build.sh OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build.sh OUT_DIR}
mkdir -p "$out"
command -v gcc >/dev/null || { echo "clock-warp: gcc is needed to build it (Debian: apt-get install gcc libc6-dev)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -fPIE -ffreestanding -nostdlib -fno-stack-protector -fcf-protection=none \
  -fno-asynchronous-unwind-tables -c "$here/stub.c" -o "$tmp/stub.o"
ld -T "$here/stub.ld" --no-warn-rwx-segments -o "$tmp/stub.elf" "$tmp/stub.o" 2>/dev/null \
  || ld -T "$here/stub.ld" -o "$tmp/stub.elf" "$tmp/stub.o"
objcopy -O binary "$tmp/stub.elf" "$tmp/stub.bin"
gcc -O2 -static -s -Wall -Wextra -Wno-sign-compare -DSTUB_BIN="\"$tmp/stub.bin\"" -I "$here" \
  "$here/clock-warp.c" -o "$out/clock-warp.tmp"
mv "$out/clock-warp.tmp" "$out/clock-warp"
