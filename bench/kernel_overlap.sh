#!/usr/bin/env bash
# Issue 29's overlap goal: `gemm_pipelined` (a 2-D grid of output blocks,
# each K loop double-buffered with tl.load_async and accumulating tl.dot)
# against the composite GEMM (`gemm`, one command that PE_SCHEDULER tiles)
# on one PE, f16 in, f32 out, the same tile edge T for both (composite tiles
# T x T x T; pipelined blocks T x T x T). Simulated time is deterministic, so
# each pair runs once; prints simulated time, achieved TFLOP/s (2 M N K /
# simulated time), the ratio, and the wall time of each run. Exit 1 if a
# pipelined run reaches less than 95% of the composite's throughput.
#
#   bench/kernel_overlap.sh                  sizes 512 1024 2048, T=128
#   SIZES="512" TILES="64 128" bench/kernel_overlap.sh
# Also: KB_BUILD_DIR (default build), KB_SKIP_BUILD=1.
set -euo pipefail
KB_SCRIPT=kernel-overlap
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

SIZES=${SIZES:-512 1024 2048}
TILES=${TILES:-128}
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }

cd "$KB_ROOT"
[[ "${KB_SKIP_BUILD:-}" == 1 ]] || KB_TARGETS=kernbench "$KB_ROOT/scripts/build.sh" >/dev/null
EXE="$KB_BUILD/kernbench"

# sim_ns wall_s of one run
one() {
  local start end out
  start=$(date +%s.%N)
  out=$("$EXE" run --pes 1 "$@" 2>&1) || { echo "$out" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$(grep -m1 '^simulated time:' <<<"$out" | awk '{print $3}') $(echo "$end - $start" | bc)"
}

status=0
printf '%6s %4s  %14s %9s  %14s %9s  %7s  %s\n' size T composite_ns TFLOP/s pipelined_ns TFLOP/s ratio "wall s (composite, pipelined)"
for s in $SIZES; do
  for t in $TILES; do
    read -r c_ns c_wall < <(one --kernel gemm --arg M="$s" --arg K="$s" --arg N="$s" \
      --arg block_m="$s" --arg tile="$t" --arg out_dtype=f32)
    read -r p_ns p_wall < <(one --kernel gemm_pipelined --arg M="$s" --arg K="$s" --arg N="$s" \
      --arg block_m="$t" --arg block_n="$t" --arg block_k="$t" --arg out_dtype=f32)
    flop=$(echo "2 * $s * $s * $s" | bc)
    c_tf=$(echo "scale=3; $flop / $c_ns / 1000" | bc)
    p_tf=$(echo "scale=3; $flop / $p_ns / 1000" | bc)
    ratio=$(echo "scale=4; $c_ns / $p_ns" | bc)
    printf '%6s %4s  %14s %9s  %14s %9s  %7s  %.2f %.2f\n' "$s" "$t" "$c_ns" "$c_tf" "$p_ns" "$p_tf" "$ratio" "$c_wall" "$p_wall"
    if (( $(echo "$ratio < 0.95" | bc) )); then status=1; fi
  done
done
exit $status
