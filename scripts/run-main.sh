#!/usr/bin/env bash
# The main job in one command: installs missing Debian packages, builds
# kernbench, and runs `kernbench run` on the default configuration.
# Arguments are passed on to `kernbench run` (see `build/kernbench run --help`).
set -euo pipefail
KB_SCRIPT=run-main
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  cd "$KB_ROOT"
  "$KB_ROOT/scripts/setup.sh"
  KB_TARGETS="${KB_TARGETS:-kernbench}" "$KB_ROOT/scripts/build.sh"
  kb_log "$KB_BUILD/kernbench run${*:+ $*}"
  exec "$KB_BUILD/kernbench" run "$@"
}

main "$@"
