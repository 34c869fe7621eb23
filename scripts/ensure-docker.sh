#!/usr/bin/env bash
# Makes sure a Docker engine answers. If none does and we are root on Debian, installs
# docker.io (apt) and starts dockerd in the background; otherwise says what is missing.
set -euo pipefail
answers() { timeout 10 docker info >/dev/null 2>&1; }
if command -v docker >/dev/null 2>&1 && answers; then exit 0; fi

if [ "$(id -u)" != 0 ]; then
  echo "lockchaos: no Docker engine answers. Start one (sudo systemctl start docker) or add yourself to the docker group." >&2
  exit 3
fi
if ! command -v dockerd >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "lockchaos: no Docker engine and no apt-get to install one: install Docker for this system." >&2
    exit 3
  fi
  echo "installing docker.io (apt-get)..."
  . "$(dirname "$0")/apt-install.sh"
  apt_install docker.io iptables
fi
if command -v systemctl >/dev/null 2>&1 && systemctl is-system-running >/dev/null 2>&1; then
  systemctl start docker || true
fi
if ! answers; then
  echo "starting dockerd..."
  mkdir -p /var/log
  nohup dockerd >/var/log/lockchaos-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do answers && break; sleep 0.5; done
fi
if ! answers; then
  echo "lockchaos: dockerd did not start; see /var/log/lockchaos-dockerd.log" >&2
  exit 3
fi
echo "docker engine: $(docker version --format '{{.Server.Version}}')"
