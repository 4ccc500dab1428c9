#!/usr/bin/env bash
# Issue 27's performance goal: `run --kernel gemm` on the 1,024-PE machine
# (config/scale/4sip_4cube_64pe.yaml, one 512-row output block per PE,
# 512^3 each, A and C spread and B replicated as docs/adr/0028 describes)
# against the built-in driver's `--pes all --M 512 --K 512 --N 512` run of
# the same work, interleaved, R repeats each, median wall times and their
# ratio (goal: at most 1.3); then the same kernel run with --json against
# without, the cost of the report file (goal: at most 1.1). Both runs
# model the same machine: their simulated times are printed side by side.
#
#   bench/kernel_vs_driver.sh            R=3, 1 thread
#   R=5 THREADS=2 bench/kernel_vs_driver.sh
# Also: KB_BUILD_DIR (default build), KB_SKIP_BUILD=1, TOPOLOGY.
set -euo pipefail
KB_SCRIPT=kernel-vs-driver
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

R=${R:-3}
THREADS=${THREADS:-1}
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; }

cd "$KB_ROOT"
[[ "${KB_SKIP_BUILD:-}" == 1 ]] || KB_TARGETS=kernbench "$KB_ROOT/scripts/build.sh" >/dev/null
EXE="$KB_BUILD/kernbench"
TOPOLOGY=${TOPOLOGY:-config/scale/4sip_4cube_64pe.yaml}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

probe=$("$EXE" run --topology "$TOPOLOGY" --pes all --M 64 --K 64 --N 64 --quiet)
PES=$(grep -m1 -oE 'on [0-9]+ PE' <<<"$probe" | grep -oE '[0-9]+')
M=$((PES * 512))
driver=(run --topology "$TOPOLOGY" --threads "$THREADS" --quiet --pes all --M 512 --K 512 --N 512)
kernel=(run --topology "$TOPOLOGY" --threads "$THREADS" --quiet --kernel gemm --arg M="$M"
  --arg K=512 --arg N=512 --arg block_m=512 --arg tile=128 --arg out_dtype=f16
  --place a=spread --place b=replicated --place c=spread)

# wall seconds, RSS KiB, simulated time of one run: "wall rss sim"
one() {
  local out
  out=$(/usr/bin/time -f '%e %M' -o "$WORK/time" "$EXE" "$@" 2>&1) || { echo "$out" >&2; exit 1; }
  echo "$(cat "$WORK/time") $(grep -m1 '^simulated time:' <<<"$out" | cut -d: -f2 | xargs | tr ' ' '_')"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

: >"$WORK/d"; : >"$WORK/k"; : >"$WORK/j"
for ((i = 0; i < R; i++)); do
  one "${driver[@]}" >>"$WORK/d"
  one "${kernel[@]}" >>"$WORK/k"
  one "${kernel[@]}" --json "$WORK/k.json" >>"$WORK/j"
done
d=$(cut -d' ' -f1 "$WORK/d" | median); k=$(cut -d' ' -f1 "$WORK/k" | median); j=$(cut -d' ' -f1 "$WORK/j" | median)
echo "machine: $TOPOLOGY ($PES PEs), $THREADS thread(s), $R runs each, medians"
printf '%-28s %8s %10s  %s\n' run "wall s" "RSS MiB" "simulated time"
for x in d:driver k:kernel j:"kernel --json"; do
  f=${x%%:*}; name=${x#*:}
  printf '%-28s %8s %10s  %s\n' "$name" "$(cut -d' ' -f1 "$WORK/$f" | median)" \
    "$(cut -d' ' -f2 "$WORK/$f" | median | awk '{printf "%.0f", $1 / 1024}')" \
    "$(head -1 "$WORK/$f" | cut -d' ' -f3 | tr '_' ' ')"
done
ratio=$(echo "scale=3; $k / $d" | bc)
json=$(echo "scale=3; $j / $k" | bc)
echo "kernel / driver: $ratio (goal <= 1.3); kernel --json / kernel: $json (goal <= 1.1)"
(( $(echo "$ratio <= 1.3" | bc) )) || exit 1
