#!/usr/bin/env bash
# Builds the lockchaos node image (redis, etcd, zookeeper, iptables, iproute2, procps).
#
#   bash docker/build-image.sh            offline route: mmdebstrap rootfs + docker import
#   bash docker/build-image.sh --registry registry route: docker build from docker/Dockerfile
#
# The offline route needs only Debian's package mirror (no container registry), which is
# how this machine and its CI live. It prints the image name on its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(tr -d '[:space:]' < "$here/VERSION")
image="lockchaos/node:$version"
route=offline
[ "${1:-}" = "--registry" ] && route=registry

if docker image inspect "$image" >/dev/null 2>&1 && [ "${FORCE:-0}" != 1 ]; then
  echo "image $image already exists (FORCE=1 to rebuild)"
  echo "$image"
  exit 0
fi

if [ "$route" = registry ]; then
  docker build -t "$image" "$here"
  echo "$image"
  exit 0
fi

if ! command -v mmdebstrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing mmdebstrap (apt-get)..."
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null; }
  else
    echo "lockchaos: mmdebstrap is missing; install it (apt-get install mmdebstrap) or build with --registry" >&2
    exit 3
  fi
fi

work=$(mktemp -d /tmp/lockchaos-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
include=$(grep -v '^#' "$here/packages.txt" | grep -v '^$' | paste -sd, -)
echo "building $image offline: mmdebstrap bookworm ($include)..."
# No man-page exclusion: openjdk's postinst (for zookeeper) links into /usr/share/man.
# Same mirror as the host's apt uses; the debian-security suite keeps servers patched.
mmdebstrap --variant=minbase --include="$include" \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --aptopt='APT::Install-Recommends "false"' \
  bookworm "$work/rootfs.tar" \
  "deb http://deb.debian.org/debian bookworm main" \
  "deb http://deb.debian.org/debian-security bookworm-security main"
echo "importing into docker..."
docker import \
  --change 'CMD ["sleep", "infinity"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "LABEL org.lockchaos.image=$version" \
  "$work/rootfs.tar" "$image" >/dev/null
echo "$image"
