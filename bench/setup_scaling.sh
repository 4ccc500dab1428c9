#!/usr/bin/env bash
# How a run's set-up grows with the machine (issue 31 items 1 and 6): the
# 4 SIP x 4 cube x 64 PE machine and the same with more SIPs in the
# inter-SIP ring (`kernbench topology scale --sips S --cubes 4 --pes 64`; 16
# SIPs: 4,096 PEs, 64 SIPs: 16,384 PEs), each set up R times with one PE
# running a small GEMM. Prints per machine the lowest time of the main
# set-up phases (`kernbench run --timings`: read the machine, build the
# routes, add the nodes and links, plan the shards, build the nodes), the
# whole run, the peak RSS, and the ratio of the run to the previous
# machine's (4x the PEs each step; goal: about 4x, at most ~5x).
#
#   bench/setup_scaling.sh          R=2, SIPS="4 16 64"
#   R=3 SIPS="4 16" bench/setup_scaling.sh
#
# Also: KB_BUILD_DIR (default build), KB_SKIP_BUILD=1.
set -euo pipefail
KB_SCRIPT=setup-scaling
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

R=${R:-2}
SIPS=${SIPS:-4 16 64}
kb_bench_start "$@"

phase() { awk -v p="$1" 'index($0, "  " p " ") == 1 { for (i = 1; i <= NF; ++i) if ($i == "s") { print $(i - 1); exit } }' "$2"; }
lowest() { sort -g | head -1; }

PHASES=("read the machine" "build the routes" "add the nodes and links" "plan the shards" "build the nodes" "total")
printf '%-5s %6s' sips pes
for p in "${PHASES[@]}"; do printf ' %12s' "${p##* }"; done
printf ' %9s %7s\n' peak_MiB ratio
prev=""
for s in $SIPS; do
  "$EXE" topology scale --sips "$s" --cubes 4 --pes 64 --out "$WORK/s$s.yaml"
  declare -A best=()
  for r in $(seq "$R"); do
    "$EXE" run --topology "$WORK/s$s.yaml" --pes 1 --M 128 --K 128 --N 128 --quiet --timings \
      > "$WORK/out$r.txt" 2>&1 || kb_die "the run on $s SIPs failed: $(tail -3 "$WORK/out$r.txt")"
    for p in "${PHASES[@]}" peak; do
      if [[ $p == peak ]]; then
        v=$(awk '/^  total / { print $(NF - 2) }' "$WORK/out$r.txt")
      else
        v=$(phase "$p" "$WORK/out$r.txt")
      fi
      [[ -n "$v" ]] || kb_die "no '$p' line for $s SIPs"
      best[$p]=$(printf '%s\n%s\n' "${best[$p]:-$v}" "$v" | lowest)
    done
  done
  printf '%-5s %6s' "$s" $((s * 256))
  for p in "${PHASES[@]}"; do printf ' %12s' "${best[$p]}"; done
  ratio=$([[ -n "$prev" ]] && awk -v a="${best[total]}" -v b="$prev" 'BEGIN { printf "%.1fx", a / b }' || echo -)
  printf ' %9s %7s\n' "${best[peak]}" "$ratio"
  prev=${best[total]}
  unset best
done
