#!/usr/bin/env bash
# Issue 10's first-contact check, for real: a fresh Debian machine, root, with only Node
# (and npm), no Docker engine and no lockchaos image; a `git clone` of this repository and
# docs/contributing.md's first command, `bash scripts/first-run.sh`, alone must reach a verdict.
#
# The fresh machine is a privileged container (Docker-in-Docker) made from a minimal Debian
# bookworm rootfs (mmdebstrap --variant=minbase, plus git and ca-certificates), with this
# host's Node and npm copied in and this host's apt and npm configuration (mirrors, CA
# certificates): nothing of lockchaos, no docker.io, no image. Its /var/lib/docker is a
# volume (overlay2 on overlay2 does not work). Inside, as root:
#   git clone /src lockchaos && cd lockchaos && bash scripts/first-run.sh
# /src is this checkout (read-only), so the clone is of its HEAD commit: commit first.
# Every line of the output is prefixed with the seconds since the clone, which gives the
# stages' times (engine, npm ci, build, image, run).
#
#   bash test/fresh-machine/run.sh [first-run.sh arguments...]
#
# Takes 5 minutes on a quiet 2-core machine, 13 under load (measured 2026-12-01: rootfs
# 64 s / 197 s, then inside: docker.io and dockerd 18 s / 37 s, npm ci 25 s / 56 s, build
# 18 s / 64 s, node image 133 s / 369 s, the run 37 s / 40 s). Docker-heavy: not part of
# the test suite, run it alone.
# Needs root, a Docker engine on this host, mmdebstrap, and Debian's mirror and npm's registry.
# Exit 0 when a verdict line appeared (INVALID is the expected verdict), 1 otherwise.
# KEEP=1 leaves the container running for a look (docker exec -it lockchaos-fresh-machine bash);
# remove it and its volume and image after with: bash test/fresh-machine/run.sh --clean
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
label=lockchaos.helper=fresh-machine
name=lockchaos-fresh-machine
image=lockchaos-fresh-machine:bookworm
volume=lockchaos-fresh-machine-docker

clean() {
  docker rm -f "$name" >/dev/null 2>&1 || true
  docker volume rm "$volume" >/dev/null 2>&1 || true
  docker image rm "$image" >/dev/null 2>&1 || true
}
if [ "${1:-}" = --clean ]; then clean; exit 0; fi
[ "$(id -u)" = 0 ] || { echo "fresh-machine: run as root (mmdebstrap, a privileged container)" >&2; exit 3; }
command -v mmdebstrap >/dev/null || { echo "fresh-machine: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 3; }

node_bin=$(readlink -f "$(command -v node)")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")  # .../node_modules/npm
start=$SECONDS
docker rm -f "$name" >/dev/null 2>&1 || true
docker volume rm "$volume" >/dev/null 2>&1 || true

# 1. The rootfs: minbase, git, CA certificates; this host's mirrors, apt settings, CAs,
#    npm configuration, and its Node (binary, headers, npm).
work=$(mktemp -d /tmp/lockchaos-fresh.XXXXXX)
trap 'rm -rf "$work"; [ "${KEEP:-0}" = 1 ] || clean' EXIT
if docker image inspect "$image" >/dev/null 2>&1; then
  echo "fresh-machine: reusing the image $image (left by KEEP=1; --clean removes it)"
else
echo "fresh-machine: rootfs (mmdebstrap minbase bookworm + git, ca-certificates; Node $(node --version), npm $(npm --version))..."
hooks=(
  --customize-hook="tar -C / -c ${node_bin#/} ${npm_dir#/} usr/include/node 2>/dev/null | tar -C \"\$1\" -x"
  --customize-hook="[ -e \"\$1/usr/bin/node\" ] || ln -s /${node_bin#/} \"\$1/usr/bin/node\""
  --customize-hook="ln -sf /${npm_dir#/}/bin/npm-cli.js \"\$1/usr/bin/npm\"; ln -sf /${npm_dir#/}/bin/npx-cli.js \"\$1/usr/bin/npx\""
  --customize-hook="for f in /etc/apt/apt.conf.d/99artifact-registry /etc/apt/apt.conf.d/99farm-no-dep11; do [ ! -f \$f ] || cp \$f \"\$1/etc/apt/apt.conf.d/\"; done"
  --customize-hook="cp /usr/local/share/ca-certificates/*.crt \"\$1/usr/local/share/ca-certificates/\" 2>/dev/null || true; chroot \"\$1\" update-ca-certificates >/dev/null"
  --customize-hook="for f in /etc/npmrc /usr/etc/npmrc /root/.npmrc; do [ ! -f \$f ] || { mkdir -p \"\$1\$(dirname \$f)\"; cp \$f \"\$1\$f\"; }; done"
)
mmdebstrap --quiet --variant=minbase --include=ca-certificates,git \
  --aptopt='APT::Install-Recommends "false"' \
  "${hooks[@]}" \
  bookworm "$work/rootfs.tar" \
  "deb http://deb.debian.org/debian bookworm main" \
  "deb http://deb.debian.org/debian bookworm-updates main" \
  "deb http://deb.debian.org/debian-security bookworm-security main"
docker import --change "LABEL $label" --change 'CMD ["sleep", "infinity"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  "$work/rootfs.tar" "$image" >/dev/null
rm -f "$work/rootfs.tar"
echo "fresh-machine: rootfs and image in $((SECONDS - start)) s"
fi

# 2. The machine: privileged (its own dockerd), the host's cgroups (v1 here), a volume
#    for its /var/lib/docker, this checkout read-only at /src. Where the host's root lacks
#    a capability (these VMs have no CAP_SYS_RESOURCE in the bounding set), --privileged
#    fails ("unable to apply caps"): then every capability but the missing ones, no
#    seccomp/AppArmor, unmasked /proc and /sys, every device, and the cgroup tree read-write.
bnd=$((16#$(awk '/^CapBnd/ {print $2}' /proc/self/status)))
last=$(cat /proc/sys/kernel/cap_last_cap)
missing=()
for ((c = 0; c <= last; c++)); do (( (bnd >> c) & 1 )) || missing+=("$c"); done
if [ ${#missing[@]} = 0 ]; then
  machine=(--privileged)
else
  names=$(capsh --decode=$(printf '%x' $(( (1 << (last + 1)) - 1 - bnd ))) 2>/dev/null | sed 's/.*=//; s/cap_//g' | tr a-z A-Z)
  [ -n "$names" ] || { echo "fresh-machine: capabilities ${missing[*]} are missing and capsh (libcap2-bin) is not there to name them" >&2; exit 3; }
  machine=(--cap-add ALL)
  for c in ${names//,/ }; do machine+=(--cap-drop "$c"); done
  machine+=(--security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined
    --device-cgroup-rule 'a *:* rwm' -v /sys/fs/cgroup:/sys/fs/cgroup:rw)
  echo "fresh-machine: no --privileged (the host lacks ${names}): ${machine[*]}"
fi
docker volume create --label "$label" "$volume" >/dev/null
docker run -d --name "$name" --label "$label" "${machine[@]}" --cgroupns=host \
  --hostname fresh-machine \
  -v "$volume:/var/lib/docker" -v "$repo:/src:ro" \
  "$image" sleep infinity >/dev/null
docker exec "$name" sh -c 'command -v docker dockerd mmdebstrap || true; ls /var/lib/docker | wc -l' \
  | sed 's/^/fresh-machine: before: /'

# 3. Inside, as root: clone, cd, docs/contributing.md's first command.
echo "fresh-machine: inside: git clone /src lockchaos && cd lockchaos && bash scripts/first-run.sh $*"
set +e
docker exec -e HOME=/root -w /root "$name" bash -c '
  git config --global --add safe.directory "*"
  git clone -q /src lockchaos && cd lockchaos && git log --oneline -1 && bash scripts/first-run.sh "$@"
  echo "first-run.sh exit: $?"
' bash "$@" 2>&1 | (
  t0=$SECONDS
  while IFS= read -r line; do printf '[%4d s] %s\n' $((SECONDS - t0)) "$line"; done
) | tee "$work/out.log"
set -e
echo "fresh-machine: all in $((SECONDS - start)) s"
if grep -q 'verdict:' "$work/out.log"; then
  echo "fresh-machine: reached a verdict: $(grep 'verdict:' "$work/out.log" | tail -1 | sed 's/^\[ *[0-9]* s\] //')"
  exit 0
fi
echo "fresh-machine: no verdict"
exit 1
