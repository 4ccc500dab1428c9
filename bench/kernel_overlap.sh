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
# Then flash_attention with seq 2048, head dim 128, f16, 64 heads on the 64
# PEs of one cube (config/scale/1sip_4cube_64pe.yaml, --pes 64: one head per
# PE), for each block_m of FA_BLOCKS (block_n 128): the GEMM unit's busy time
# over the kernel's time (start to return), min and median over the PEs.
# Exit 1 if the median is below 70% for the first block_m.
#
#   bench/kernel_overlap.sh                  sizes 512 1024 2048, T=128
#   SIZES="512" TILES="64 128" bench/kernel_overlap.sh
# Also: KB_BUILD_DIR (default build), KB_SKIP_BUILD=1.
set -euo pipefail
KB_SCRIPT=kernel-overlap
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

SIZES=${SIZES:-512 1024 2048}
FA_BLOCKS=${FA_BLOCKS:-256 128}
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
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
first=1
for bm in $FA_BLOCKS; do
  start=$(date +%s.%N)
  "$EXE" run --quiet --topology config/scale/1sip_4cube_64pe.yaml --pes 64 --threads 2 \
    --kernel flash_attention --arg heads=64 --arg seq=2048 --arg head_dim=128 \
    --arg block_m="$bm" --arg block_n=128 --json "$WORK/fa.json" >/dev/null
  end=$(date +%s.%N)
  median=$(python3 - "$WORK/fa.json" "$bm" "$(echo "$end - $start" | bc)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
busy = {u["node"].rsplit(".", 1)[0]: u["figures"].get("gemm.busy_ps", 0)
        for u in d["units"] if u["node"].endswith("pe_gemm")}
r = sorted(busy[k["pe"]] / (k["end_ps"] - k["start_ps"]) for k in d["kernel_time"] if k["finished"])
med = r[len(r) // 2]
print(f"flash_attention block_m={sys.argv[2]}: GEMM busy / kernel time over {len(r)} PEs: "
      f"min {r[0]:.3f} median {med:.3f}; simulated {d['end_ps'] / 1e6:.1f} us; wall {float(sys.argv[3]):.1f} s",
      file=sys.stderr)
print(med)
PY
)
  if (( first )) && (( $(echo "$median < 0.70" | bc) )); then status=1; fi
  first=0
done
exit $status
