# shellcheck shell=bash
# Shared helpers for the scripts in this folder. Source it, don't run it:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Repository root (the parent of scripts/), as an absolute path.
KB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Build directory: $KB_BUILD_DIR (relative paths are taken from the repo root).
KB_BUILD="${KB_BUILD_DIR:-build}"
[[ "$KB_BUILD" = /* ]] || KB_BUILD="$KB_ROOT/$KB_BUILD"

kb_log() { printf '[%s] %s\n' "${KB_SCRIPT:-kernbench}" "$*" >&2; }
kb_die() { printf '[%s] error: %s\n' "${KB_SCRIPT:-kernbench}" "$*" >&2; exit 1; }

# Seconds since the epoch with a fraction, for phase timings.
kb_now() { date +%s.%N; }
# Elapsed seconds since $1 (from kb_now), one decimal.
kb_since() { awk -v a="$1" -v b="$(kb_now)" 'BEGIN { printf "%.1f", b - a }'; }

# Median of the numbers on standard input, one per line.
kb_median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# The start of a benchmark under bench/: `-h`/`--help` prints the script's
# header comment (up to `set -euo`) and exits; R must be a positive integer;
# builds kernbench unless KB_SKIP_BUILD=1; cd to the repository root; sets
# EXE (the kernbench binary) and WORK (a temporary folder removed at exit).
# Call it with the script's arguments: kb_bench_start "$@".
kb_bench_start() {
  if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
  fi
  [[ "${R:-1}" =~ ^[1-9][0-9]*$ ]] || kb_die "R must be a positive integer, got '$R'"
  cd "$KB_ROOT" || kb_die "cannot enter $KB_ROOT"
  [[ "${KB_SKIP_BUILD:-}" == 1 ]] || KB_TARGETS=kernbench "$KB_ROOT/scripts/build.sh" >/dev/null
  EXE="$KB_BUILD/kernbench"
  WORK=$(mktemp -d)
  # shellcheck disable=SC2064 # expand WORK now
  trap "rm -rf '$WORK'" EXIT
}
