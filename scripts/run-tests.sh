#!/usr/bin/env bash
# The test suite in one command: installs missing Debian packages, builds with
# tests (and -Werror when CI=true), and runs CTest. Arguments are passed on to
# ctest, e.g. `scripts/run-tests.sh -R phold`.
#
# Environment: KB_JOBS (default 2), KB_TEST_TIMEOUT seconds per test
# (default 300), KB_WERROR=ON|OFF (default ON when CI=true, else OFF),
# KB_BUILD_DIR (default build), KB_SANITIZE=1|0 (default 1 when CI=true):
# build with address+undefined sanitizers (-O1 -g1) into
# ${KB_BUILD_DIR}-asan instead and run the suite there (leaks are errors):
# one build, so that CI stays well inside its time;
# KB_FUZZ_SECONDS (default 20 when CI=true, else 0): then build the libFuzzer
# targets and run each that long (scripts/fuzz.sh, docs/testing.md).
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
  if [[ "${KB_SANITIZE:-$([[ "${CI:-}" == true ]] && echo 1 || echo 0)}" == 1 ]]; then
    # -O1 with line tables only: half the compile time of -O2 -g under the
    # sanitizers, and ASan still names file:line in its reports.
    KB_BUILD_DIR="${KB_BUILD}-asan" KB_BUILD_TYPE=RelWithDebInfo "$KB_ROOT/scripts/build.sh" \
      -DKB_ENABLE_TESTS=ON -DKB_ENABLE_BENCH=OFF -DKB_WERROR="$(werror)" \
      -DKB_SANITIZERS=address,undefined \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
    kb_log "sanitizer build took $(kb_since "$t1") s; running ctest under ASan/UBSan"
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --test-dir "${KB_BUILD}-asan" --output-on-failure --no-tests=error \
      --parallel "${KB_JOBS:-2}" --timeout "${KB_TEST_TIMEOUT:-300}" "$@"
  else
    "$KB_ROOT/scripts/build.sh" -DKB_ENABLE_TESTS=ON -DKB_WERROR="$(werror)"
    kb_log "configure+build took $(kb_since "$t1") s; running ctest"
    # ctest's own summary stays the last thing printed.
    ctest --test-dir "$KB_BUILD" --output-on-failure --no-tests=error \
      --parallel "${KB_JOBS:-2}" --timeout "${KB_TEST_TIMEOUT:-300}" "$@"
  fi
  if [[ "${KB_FUZZ_SECONDS:-$([[ "${CI:-}" == true ]] && echo 20 || echo 0)}" != 0 ]]; then
    local t3
    t3=$(kb_now)
    "$KB_ROOT/scripts/fuzz.sh" "${KB_FUZZ_SECONDS:-20}"
    kb_log "fuzzing took $(kb_since "$t3") s"
  fi
}

main "$@"
