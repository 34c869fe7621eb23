# Sourced, not run: apt_install PKG... installs Debian packages, reading the package lists
# again only if the first try fails (a fresh machine's lists may be stale or absent).
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
}
