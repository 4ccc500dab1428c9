#!/usr/bin/env bash
# Issue 60's performance goals for the shipped decoder_layer program
# (S=1024, D=1024, H=8, F=4096, f16, causal, GELU; every run --verify):
#
# 1. On the 64-PE cube (config/scale/1sip_4cube_64pe.yaml --pes 64), the
#    program as one run against its seven kernels run separately, chained
#    through --dump-tensors / --input as a user had to before programs
#    (layernorm, QKV gemm_pipelined, flash_attention with the packed layout,
#    projection + residual, layernorm, MLP up with GELU, MLP down +
#    residual), interleaved, R repeats each: median whole-process wall time
#    (goal: program <= 0.5 x the seven runs' sum) and peak RSS (goal: the
#    program's <= the largest single stage's).
# 2. The program's simulated time on 1,024 PEs (config/scale/4sip_4cube_64pe.yaml)
#    with its default placement against the 64-PE cube's (goal: no worse).
#
#   bench/decoder_layer.sh                R=3
#   R=1 SEQ=256 FFN=1024 bench/decoder_layer.sh   quicker, smaller
# Also: KB_BUILD_DIR (default build), KB_SKIP_BUILD=1, THREADS (default 1),
# SEQ, DMODEL, HEADS, FFN.
set -euo pipefail
KB_SCRIPT=decoder-layer
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

R=${R:-3}
THREADS=${THREADS:-1}
S=${SEQ:-1024}
D=${DMODEL:-1024}
H=${HEADS:-8}
F=${FFN:-4096}
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }

cd "$KB_ROOT"
[[ "${KB_SKIP_BUILD:-}" == 1 ]] || KB_TARGETS=kernbench "$KB_ROOT/scripts/build.sh" >/dev/null
EXE="$KB_BUILD/kernbench"
CUBE=(--topology config/scale/1sip_4cube_64pe.yaml --pes 64)
BIG=(--topology config/scale/4sip_4cube_64pe.yaml)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

common=(--threads "$THREADS" --quiet --verify)
layer=(--program decoder_layer --arg seq="$S" --arg d_model="$D" --arg heads="$H" --arg ffn="$F")
program=(run "${CUBE[@]}" "${common[@]}" "${layer[@]}")
gemm() { # M K N [more --arg]...
  local m=$1 k=$2 n=$3
  shift 3
  echo --kernel gemm_pipelined --arg M="$m" --arg K="$k" --arg N="$n" --arg block_m=64 \
    --arg block_n=64 --arg block_k=64 --arg dtype=f16 --arg out_dtype=f16 "$@"
}
norm="--kernel layernorm --arg rows=$S --arg cols=$D --arg programs=64 --arg dtype=f16"
# The seven stages: "stage-dir|options" (inputs from the earlier stages' dumps).
stages=(
  "1|$norm"
  "2|$(gemm "$S" "$D" $((3 * D))) --input a=@1/y.npy"
  "3|--kernel flash_attention --arg heads=$H --arg seq=$S --arg head_dim=$((D / H)) --arg causal=1 --arg layout=packed --input qkv=@2/c.npy"
  "4|$(gemm "$S" "$D" "$D" --arg residual=1) --input a=@3/o.npy --input r=@1/x.npy"
  "5|$norm --input x=@4/c.npy"
  "6|$(gemm "$S" "$D" "$F" --arg activation=gelu) --input a=@5/y.npy"
  "7|$(gemm "$S" "$F" "$D" --arg residual=1) --input a=@6/c.npy --input r=@4/c.npy"
)

# wall seconds and peak RSS KiB of one run: "wall rss"; its stdout to $WORK/out
one() {
  /usr/bin/time -f '%e %M' -o "$WORK/time" "$EXE" "$@" >"$WORK/out" 2>&1 ||
    { cat "$WORK/out" >&2; kb_die "failed: kernbench $*"; }
  cat "$WORK/time"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
simulated() { grep -m1 -E 'the program ends at|^simulated time:' "$WORK/out" | grep -oE '[0-9.]+ (ns|us|ms)' | tail -1; }

: >"$WORK/p"; : >"$WORK/s"; : >"$WORK/rss_s"
for ((i = 0; i < R; i++)); do
  one "${program[@]}" >>"$WORK/p"
  grep -q '^verdict: PASS' "$WORK/out" || kb_die "the program did not verify"
  total=0
  for st in "${stages[@]}"; do
    n=${st%%|*}
    read -r -a opts <<<"${st#*|}"
    opts=("${opts[@]//@/$WORK/}")
    mkdir -p "$WORK/$n"
    read -r w rss < <(one run "${CUBE[@]}" "${common[@]}" "${opts[@]}" --dump-tensors "$WORK/$n")
    grep -q '^verdict: PASS' "$WORK/out" || kb_die "stage $n did not verify"
    total=$(echo "$total + $w" | bc)
    echo "$rss" >>"$WORK/rss_s"
  done
  echo "$total" >>"$WORK/s"
done
p_wall=$(cut -d' ' -f1 "$WORK/p" | median)
p_rss=$(cut -d' ' -f2 "$WORK/p" | median)
s_wall=$(median <"$WORK/s")
s_rss=$(sort -g "$WORK/rss_s" | tail -1)
echo "decoder_layer S=$S D=$D H=$H F=$F f16 on the 64-PE cube, $THREADS thread(s), $R runs each, medians, --verify"
printf '%-34s %8s %12s\n' run "wall s" "peak RSS MiB"
printf '%-34s %8s %12s\n' "program (one run)" "$p_wall" "$((p_rss / 1024))"
printf '%-34s %8s %12s\n' "7 stages through files (sum; max)" "$s_wall" "$((s_rss / 1024))"
ratio=$(echo "scale=3; $p_wall / $s_wall" | bc)
echo "program / stages: wall $ratio (goal <= 0.5); RSS $p_rss KiB vs largest stage $s_rss KiB (goal: not higher)"

one run "${BIG[@]}" --threads "$THREADS" --quiet "${layer[@]}" >/dev/null
big=$(simulated)
one run "${CUBE[@]}" --threads "$THREADS" --quiet "${layer[@]}" >/dev/null
cube=$(simulated)
echo "simulated time: $big on 1,024 PEs (default placement) vs $cube on the 64-PE cube"
ok=1
(( $(echo "$ratio <= 0.5" | bc) )) || ok=0
(( p_rss <= s_rss )) || ok=0
(( ok )) || exit 1
