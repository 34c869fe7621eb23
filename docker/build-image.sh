#!/usr/bin/env bash
# Builds one of lockchaos's images from Debian packages:
#   node      lockchaos/node: redis, redis-sentinel, etcd, zookeeper, iptables, iproute2, procps
#   postgres  lockchaos/postgres: PostgreSQL 15, and no iptables (faults from outside)
#
#   bash docker/build-image.sh [node|postgres]              offline route: mmdebstrap + docker import
#   bash docker/build-image.sh [node|postgres] --registry   registry route: docker build of its Dockerfile
#
# The offline route needs only Debian's package mirror (no container registry), which is
# how this machine and its CI live. Without mmdebstrap and root (or off Debian) it falls
# back to the registry route. It prints the image name on its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=node
route=offline
for arg in "$@"; do
  case "$arg" in
    --registry) route=registry ;;
    node | postgres) name=$arg ;;
    *) echo "lockchaos: unknown argument '$arg': use [node|postgres] [--registry]" >&2; exit 3 ;;
  esac
done
dir="$here/$name"
version=$(tr -d '[:space:]' < "$dir/VERSION")
image="lockchaos/$name:$version"

if docker image inspect "$image" >/dev/null 2>&1 && [ "${FORCE:-0}" != 1 ]; then
  echo "image $image already exists (FORCE=1 to rebuild)"
  echo "$image"
  exit 0
fi

if [ "$route" = offline ] && ! command -v mmdebstrap >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing mmdebstrap (apt-get)..."
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null 2>&1 \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null; }
  else
    echo "no mmdebstrap and not root on Debian: building $image from its Dockerfile instead"
    route=registry
  fi
fi

if [ "$route" = registry ]; then
  docker build -t "$image" --label "org.lockchaos.image=$version" "$dir"
  echo "$image"
  exit 0
fi

work=$(mktemp -d /tmp/lockchaos-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
include=$(grep -v '^#' "$dir/packages.txt" | grep -v '^$' | paste -sd, -)
hooks=()
user=()
if [ -f "$dir/setup.sh" ]; then
  hooks=(--customize-hook="copy-in $dir/setup.sh /tmp" --customize-hook='chroot "$1" sh /tmp/setup.sh' --customize-hook='rm -f "$1/tmp/setup.sh"')
fi
[ "$name" = postgres ] && user=(--change 'USER postgres')
echo "building $image offline: mmdebstrap bookworm ($include)..."
# No man-page exclusion: openjdk's postinst (for zookeeper) links into /usr/share/man.
# Same mirror as the host's apt uses; the debian-security suite keeps servers patched.
mmdebstrap --variant=minbase --include="$include" \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --aptopt='APT::Install-Recommends "false"' \
  "${hooks[@]}" \
  bookworm "$work/rootfs.tar" \
  "deb http://deb.debian.org/debian bookworm main" \
  "deb http://deb.debian.org/debian-security bookworm-security main"
echo "importing into docker..."
docker import \
  --change 'CMD ["sleep", "infinity"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "LABEL org.lockchaos.image=$version" \
  "${user[@]}" \
  "$work/rootfs.tar" "$image" >/dev/null
echo "$image"
