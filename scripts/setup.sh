#!/usr/bin/env bash
# Installs the Debian packages kernbench builds with (DESIGN.md §1), and only
# those that are missing: with everything present it runs no apt-get at all.
#
#   scripts/setup.sh           install what is missing
#   scripts/setup.sh --check   list what is missing; exit 1 if anything is
#
# KB_SKIP_SETUP=1 skips it (e.g. a machine whose packages come another way).
set -euo pipefail
KB_SCRIPT=setup
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly KB_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libcaf-dev capnproto libcapnp-dev libyaml-cpp-dev libeigen3-dev
  libspdlog-dev libfmt-dev libcli11-dev libboost-context-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  zlib1g-dev                   # .json.gz traces (runtime/trace/gzip_ostream)
  clang-14 libclang-rt-14-dev
  python3 python3-matplotlib   # `kernbench sweep --plot` (scripts/plot_sweep.py)
  python3-jsonschema           # tests: results against schema/results.schema.json
  python3-dev pybind11-dev python3-pytest   # `import kernbench` (python/) and its tests
)

is_installed() {
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

missing_packages() {
  local p
  for p in "${KB_PACKAGES[@]}"; do
    is_installed "$p" || echo "$p"
  done
}

# Runs a command as root: directly when root, else through sudo if it exists.
as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    kb_die "not root and no sudo: run as root: apt-get install $*"
  fi
}

install_packages() {
  kb_log "installing: $*"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "$@"
}

main() {
  if [[ "${KB_SKIP_SETUP:-}" == 1 ]]; then
    kb_log "KB_SKIP_SETUP=1: not checking packages"
    return 0
  fi
  command -v dpkg-query >/dev/null ||
    kb_die "dpkg-query not found: this script needs Debian 12 (or a derivative); " \
           "otherwise install the equivalents of: ${KB_PACKAGES[*]}"
  local missing
  mapfile -t missing < <(missing_packages)
  if [[ "${1:-}" == --check ]]; then
    ((${#missing[@]} == 0)) || { printf '%s\n' "${missing[@]}"; return 1; }
    return 0
  fi
  [[ $# -eq 0 ]] || kb_die "unknown argument '$1' (usage: setup.sh [--check])"
  if ((${#missing[@]} == 0)); then
    kb_log "all ${#KB_PACKAGES[@]} packages present"
    return 0
  fi
  install_packages "${missing[@]}"
  mapfile -t missing < <(missing_packages)
  ((${#missing[@]} == 0)) || kb_die "still missing after apt-get: ${missing[*]}"
  kb_log "installed; all ${#KB_PACKAGES[@]} packages present"
}

main "$@"
