#!/usr/bin/env bash
# Issue 62's first goal: a kernel run's cost per event against the built-in
# driver's, on the same 1024^3 f16 GEMM with 64^3 blocks on 4 PEs, 1 thread.
# The driver: `run --pes 4 --M 1024 --K 1024 --N 1024 --tile 64 64 64`; the
# kernel: the shipped gemm_pipelined (a 2-D grid, its K loop double-buffered
# with load_async, accumulating dots: the loop a Triton author writes) with
# 64^3 blocks. Interleaved, R runs each, medians: events, the event loop's
# wall time and events/s (the engine line), the whole process's wall time
# and peak RSS, and the share of the process outside the event loop
# (--timings). Goals (issue 62): kernel events/s at least 0.5x the
# driver's, whole-process wall at most 2x.
#
#   bench/kernel_speed.sh            R=5
#   R=9 bench/kernel_speed.sh
# Also: KB_BUILD_DIR (default build), KB_SKIP_BUILD=1.
set -euo pipefail
KB_SCRIPT="kernel-speed"
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

R=${R:-5}
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }

cd "$KB_ROOT"
[[ "${KB_SKIP_BUILD:-}" == 1 ]] || KB_TARGETS=kernbench "$KB_ROOT/scripts/build.sh" >/dev/null
EXE="$KB_BUILD/kernbench"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

driver=(run --quiet --threads 1 --timings --pes 4 --M 1024 --K 1024 --N 1024 --tile 64 64 64)
kernel=(run --quiet --threads 1 --timings --pes 4 --kernel gemm_pipelined --arg M=1024
  --arg K=1024 --arg N=1024 --arg block_m=64 --arg block_n=64 --arg block_k=64)

# "wall_s rss_kib events loop_s outside_pct" of one run
one() {
  local out
  out=$(/usr/bin/time -f '%e %M' -o "$WORK/time" "$EXE" "$@" 2>&1) || { echo "$out" >&2; exit 1; }
  local events loop outside
  events=$(grep -m1 -oE '^engine: [0-9]+ events' <<<"$out" | grep -oE '[0-9]+')
  loop=$(grep -m1 -E '^  event loop ' <<<"$out" | awk '{print $3}')
  outside=$(grep -m1 -E '^  outside the event loop' <<<"$out" | awk '{print $7}' | tr -d '%')
  echo "$(cat "$WORK/time") $events $loop $outside"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { cut -d' ' -f"$2" "$WORK/$1" | median; }

: >"$WORK/d"; : >"$WORK/k"
for ((i = 0; i < R; i++)); do
  one "${driver[@]}" >>"$WORK/d"
  one "${kernel[@]}" >>"$WORK/k"
done
echo "1024^3 f16 GEMM, 64^3 blocks, 4 PEs, 1 thread; $R runs each, interleaved, medians"
printf '%-8s %10s %10s %12s %14s %10s %9s\n' run events "loop s" "events/s" "process s" "RSS MiB" "outside"
for x in d:driver k:kernel; do
  f=${x%%:*}
  ev=$(col "$f" 3); loop=$(col "$f" 4)
  printf '%-8s %10s %10s %12.0f %14s %10.0f %8s%%\n' "${x#*:}" "$ev" "$loop" \
    "$(awk -v e="$ev" -v l="$loop" 'BEGIN {print (l > 0) ? e / l : 0}')" "$(col "$f" 1)" \
    "$(col "$f" 2 | awk '{print $1 / 1024}')" "$(col "$f" 5)"
done
awk -v de="$(col d 3)" -v dl="$(col d 4)" -v ke="$(col k 3)" -v kl="$(col k 4)" \
    -v dw="$(col d 1)" -v kw="$(col k 1)" 'BEGIN {
  printf "kernel / driver: events/s %.3f (goal >= 0.5), process wall %.2f (goal <= 2)\n",
         (ke / kl) / (de / dl), kw / dw }'
