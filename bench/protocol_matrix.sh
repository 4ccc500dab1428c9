#!/usr/bin/env bash
# The synchronisation cost of a run against how its shards are spread over
# threads and processes (issue 36, ADR-0029). For each workload, every
# configuration --threads T x --procs P x --shards (default | 16) runs R
# times, interleaved; prints per configuration the median whole-process wall
# time, the median windows and sync messages per event, the shards run, and
# the ratio of the wall time to the best of (--threads T*P --procs 1,
# --threads 1 --procs P) (goal: <= 1.5 for T*P <= 4). Every run of a workload
# must give the same digest (PHOLD) or the same engine event count (the
# machine): exit 1 if not.
#
# Workloads (WORKLOADS, default "phold256 phold1024 phold16384 machine"):
#   phold256    kernbench phold --lps 256 --events-per-lp 4 --remote 0.25
#               --lookahead-ps 1000 --mean-ps 5000 --end-ps 2000000 (the
#               issue's case, a tenth of its end time)
#   phold1024   kernbench phold --lps 1024 (defaults: 16 events per LP)
#   phold16384  kernbench phold --lps 16384 --events-per-lp 4 --end-ps 50000
#   machine     kernbench run --topology config/scale/4sip_4cube_64pe.yaml
#               --pes all --M 256 --K 256 --N 256 (1,024 PEs)
#
#   bench/protocol_matrix.sh                      R=3, T in 1 2 4, P in 1 2
#   R=5 THREADS="1 2" PROCS="1 2" WORKLOADS=phold256 bench/protocol_matrix.sh
#
# Also: SHARDS (default "0 16"; 0 = the default), KB_BUILD_DIR (default
# build), KB_SKIP_BUILD=1.
set -euo pipefail
KB_SCRIPT=protocol-matrix
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

R=${R:-3}
THREADS=${THREADS:-1 2 4}
PROCS=${PROCS:-1 2}
SHARDS=${SHARDS:-0 16}
WORKLOADS=${WORKLOADS:-phold256 phold1024 phold16384 machine}
kb_bench_start "$@"
median() { kb_median; }

workload_cmd() {
  case $1 in
    phold256) echo "phold --lps 256 --events-per-lp 4 --remote 0.25 --lookahead-ps 1000 --mean-ps 5000 --end-ps 2000000" ;;
    phold1024) echo "phold --lps 1024" ;;
    phold16384) echo "phold --lps 16384 --events-per-lp 4 --end-ps 50000" ;;
    machine) echo "run --topology config/scale/4sip_4cube_64pe.yaml --pes all --M 256 --K 256 --N 256" ;;
    *) kb_die "unknown workload '$1' (phold256, phold1024, phold16384, machine)" ;;
  esac
}

# What a run printed -> "windows sync_per_event shards check" (check: the
# digest or the engine's event count, the same in every configuration).
parse() {
  local out=$1
  if grep -q '^digest' "$out"; then
    awk '/^windows/{w=$2} /^sync msgs\/event/{s=$3} /^shards/{h=$2} /^digest/{d=$2}
         END {print w, s, h, d}' "$out"
  else
    sed -n 's/^engine: \([0-9]*\) events in [0-9.]* s wall ([0-9]* events\/s), \([0-9]*\) windows, \([0-9.]*\) sync messages per event .*, \([0-9]*\) shard(s)$/\2 \3 \4 \1/p' "$out"
  fi
}

configs=()
for p in $PROCS; do
  for t in $THREADS; do
    for s in $SHARDS; do configs+=("t${t}p${p}s${s}"); done
  done
done
args_of() { # tTpPsS -> options
  local c=$1 t p s
  t=${c#t}; t=${t%%p*}; p=${c#*p}; p=${p%%s*}; s=${c##*s}
  echo "--threads $t --procs $p --shards $s"
}

status=0
for w in $WORKLOADS; do
  read -r -a cmd <<<"$(workload_cmd "$w")"
  for ((r = 1; r <= R; r++)); do
    for c in "${configs[@]}"; do
      read -r -a extra <<<"$(args_of "$c")"
      log="$WORK/$w.$c.$r"
      /usr/bin/time -f "%e" -o "$log.time" "$EXE" "${cmd[@]}" "${extra[@]}" >"$log.out" 2>"$log.err" ||
        { echo "FAILED: kernbench ${cmd[*]} ${extra[*]}"; cat "$log.err"; exit 1; }
      parse "$log.out" >"$log.parsed"
      [[ -s "$log.parsed" ]] || { echo "FAILED to read the output of kernbench ${cmd[*]} ${extra[*]}"; exit 1; }
    done
  done
  echo "== $w: kernbench ${cmd[*]} (median of $R)"
  printf '%-22s %9s %9s %10s %7s %8s\n' configuration wall_s windows sync/event shards vs_best
  declare -A wall=()
  for c in "${configs[@]}"; do
    wall[$c]=$(cat "$WORK/$w.$c".*.time | median)
  done
  ref=""
  for c in "${configs[@]}"; do
    t=${c#t}; t=${t%%p*}; p=${c#*p}; p=${p%%s*}; s=${c##*s}
    win=$(awk '{print $1}' "$WORK/$w.$c".*.parsed | median)
    spe=$(awk '{print $2}' "$WORK/$w.$c".*.parsed | median)
    sh=$(awk '{print $3}' "$WORK/$w.$c".*.parsed | median)
    for f in "$WORK/$w.$c".*.parsed; do
      chk=$(awk '{print $4}' "$f")
      if [[ -z "$ref" ]]; then ref=$chk; elif [[ "$chk" != "$ref" ]]; then
        echo "MISMATCH: $w $c gave $chk, another configuration $ref"; status=1
      fi
    done
    # The best of (T*P threads in 1 process, P processes of 1 thread), same shards option.
    best=""
    for alt in "t$((t * p))p1s$s" "t1p${p}s$s"; do
      [[ -n "${wall[$alt]:-}" ]] || continue
      if [[ -z "$best" ]] || awk -v a="${wall[$alt]}" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=${wall[$alt]}; fi
    done
    ratio=$([[ -n "$best" ]] && awk -v a="${wall[$c]}" -v b="$best" 'BEGIN{printf "%.2f", a / b}' || echo "-")
    printf '%-22s %9s %9s %10s %7s %8s\n' "T$t P$p shards ${s/#0/default}" "${wall[$c]}" "$win" "$spe" "$sh" "$ratio"
  done
  unset wall
done
exit $status
