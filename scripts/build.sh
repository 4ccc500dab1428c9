#!/usr/bin/env bash
# Configures and builds kernbench into build/ (or $KB_BUILD_DIR), reusing an
# existing build directory. Extra arguments go to the cmake configure step:
#
#   scripts/build.sh -DKB_ENABLE_TESTS=ON -DKB_WERROR=ON
#
# Environment:
#   KB_JOBS        parallel jobs (default 2)
#   KB_BUILD_TYPE  CMAKE_BUILD_TYPE for a new build dir (default RelWithDebInfo,
#                  -O2 with debug info); for an existing one only if set
#   KB_TARGETS     space-separated targets to build (default: all)
#   KB_GENERATOR   CMake generator for a new build dir (default: Ninja if
#                  installed, else Unix Makefiles)
set -euo pipefail
KB_SCRIPT=build
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

default_generator() {
  if command -v ninja >/dev/null; then echo Ninja; else echo "Unix Makefiles"; fi
}

configure() {
  local args=(-S "$KB_ROOT" -B "$KB_BUILD")
  if [[ -f "$KB_BUILD/CMakeCache.txt" ]]; then
    # An existing build dir keeps its generator and (unless asked) build type.
    [[ -z "${KB_BUILD_TYPE:-}" ]] || args+=(-DCMAKE_BUILD_TYPE="$KB_BUILD_TYPE")
  else
    args+=(-G "${KB_GENERATOR:-$(default_generator)}")
    args+=(-DCMAKE_BUILD_TYPE="${KB_BUILD_TYPE:-RelWithDebInfo}")
  fi
  kb_log "cmake ${args[*]}${*:+ $*}"
  cmake "${args[@]}" "$@" ||
    kb_die "configure failed; missing packages? run scripts/setup.sh" \
           "(or delete $KB_BUILD to start over)"
}

build() {
  local args=(--build "$KB_BUILD" --parallel "${KB_JOBS:-2}")
  if [[ -n "${KB_TARGETS:-}" ]]; then
    local t
    for t in $KB_TARGETS; do args+=(--target "$t"); done
  fi
  kb_log "cmake ${args[*]}"
  cmake "${args[@]}" || kb_die "build failed (see the compiler output above)"
}

main() {
  command -v cmake >/dev/null || kb_die "cmake not found: run scripts/setup.sh first"
  local t0
  t0=$(kb_now)
  configure "$@"
  build
  kb_log "done in $(kb_since "$t0") s: $KB_BUILD"
}

main "$@"
