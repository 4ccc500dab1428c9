#!/usr/bin/env bash
# The test suite in one command: installs missing Debian packages, builds with
# tests (and -Werror when CI=true), and runs CTest. Arguments are passed on to
# ctest, e.g. `scripts/run-tests.sh -R phold`.
#
# Environment: KB_JOBS (default 2), KB_TEST_TIMEOUT seconds per test
# (default 300), KB_WERROR=ON|OFF (default ON when CI=true, else OFF),
# KB_BUILD_DIR (default build).
set -euo pipefail
KB_SCRIPT=run-tests
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

werror() {
  if [[ -n "${KB_WERROR:-}" ]]; then echo "$KB_WERROR"
  elif [[ "${CI:-}" == true ]]; then echo ON
  else echo OFF
  fi
}

main() {
  cd "$KB_ROOT"
  local t0 t1
  t0=$(kb_now)
  "$KB_ROOT/scripts/setup.sh"
  kb_log "setup took $(kb_since "$t0") s"
  t1=$(kb_now)
  "$KB_ROOT/scripts/build.sh" -DKB_ENABLE_TESTS=ON -DKB_WERROR="$(werror)"
  kb_log "configure+build took $(kb_since "$t1") s; running ctest"
  # ctest's own summary stays the last thing printed.
  ctest --test-dir "$KB_BUILD" --output-on-failure --no-tests=error \
    --parallel "${KB_JOBS:-2}" --timeout "${KB_TEST_TIMEOUT:-300}" "$@"
}

main "$@"
