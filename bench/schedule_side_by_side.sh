#!/usr/bin/env bash
# Cost-based schedules per second for 50-op loops, a baseline build of
# schedule_bench against this build's, interleaved in one run so that a change
# of machine load hits both alike (see bench/README.md).
#
#   BASE=/path/to/baseline/schedule_bench bench/schedule_side_by_side.sh
#   R=5 MIN_TIME=2 BASE=... bench/schedule_side_by_side.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
new="${NEW:-$root/${KB_BUILD_DIR:-build}/bench/schedule_bench}"
base="${BASE:?set BASE to a baseline schedule_bench binary (e.g. one built from main)}"
runs="${R:-3}"
min_time="${MIN_TIME:-1}"
rate() { # items/s of the modulo benchmark
  "$1" --benchmark_filter=modulo --benchmark_min_time="$min_time" 2>/dev/null |
    sed -n 's/.*items_per_second=\([0-9.k]*\)\/s.*/\1/p' | sed 's/k$/e3/'
}
printf '%-4s %14s %14s\n' run "baseline /s" "this build /s"
for i in $(seq "$runs"); do
  b=$(rate "$base")
  n=$(rate "$new")
  printf '%-4s %14.0f %14.0f\n' "$i" "$b" "$n"
done
