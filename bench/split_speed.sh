#!/usr/bin/env bash
# A run split over processes against one process with as many threads
# (issue 13's performance goal): the 4 SIP x 4 cube x 64 PE machine
# (config/scale/4sip_4cube_64pe.yaml), --pes all, split over 2 processes
# of 1 thread each (`--procs 2`) vs 1 process with 2 threads, on this
# 2-core machine. Each configuration runs R times, interleaved. Prints the
# median whole-process wall time of each, their ratio (goal: split <= 1.5x),
# the engine's own wall time, and what crossed between the processes
# (event batches, events, Cap'n Proto bytes) in total and per simulated
# microsecond. The timed runs write no files (with 1,024 PEs, writing
# --json takes longer than the run); one more run per configuration writes
# --json, and the script checks they are identical (exit 1 if not).
#
#   bench/split_speed.sh                  R=3, 512^3 f16 GEMM per PE, twice
#   R=5 ARGS="--M 1024 --K 512 --N 512" bench/split_speed.sh
#   CONFIGS="t2 p2 p2t2" bench/split_speed.sh   also 2 processes x 2 threads
#
# Configurations (CONFIGS, default "t2 p2"): tN = 1 process, N threads;
# pN = N processes (--procs N), 1 thread each; pNtM = N processes, M
# threads each. Also: KB_BUILD_DIR (default build), KB_SKIP_BUILD=1.
set -euo pipefail
KB_SCRIPT=split-bench
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

R=${R:-3}
CONFIGS=${CONFIGS:-t2 p2}
ARGS=${ARGS:---M 512 --K 512 --N 512 --repeat 2}
kb_bench_start "$@"
median() { kb_median; }

# configuration -> kernbench options
config_args() {
  case $1 in
    t[0-9]*) echo "--threads ${1#t}" ;;
    p[0-9]*t[0-9]*) local p=${1#p}; echo "--procs ${p%%t*} --threads ${p#*t}" ;;
    p[0-9]*) echo "--procs ${1#p} --threads 1" ;;
    *) kb_die "unknown configuration '$1' (tN, pN, pNtM)" ;;
  esac
}

read -r -a base <<<"--topology config/scale/4sip_4cube_64pe.yaml --pes all $ARGS"
for ((r = 1; r <= R; r++)); do
  for cfg in $CONFIGS; do
    read -r -a extra <<<"$(config_args "$cfg")"
    log="$WORK/$cfg.$r"
    /usr/bin/time -f "%e" -o "$log.time" "$EXE" run "${base[@]}" "${extra[@]}" \
      >"$log.out" 2>"$log.err" ||
      { echo "FAILED: kernbench run ${base[*]} ${extra[*]}"; cat "$log.err"; exit 1; }
  done
done
for cfg in $CONFIGS; do
  read -r -a extra <<<"$(config_args "$cfg")"
  "$EXE" run "${base[@]}" "${extra[@]}" --json "$WORK/$cfg.json" >/dev/null 2>"$WORK/$cfg.err" ||
    { echo "FAILED: kernbench run ${base[*]} ${extra[*]} --json"; cat "$WORK/$cfg.err"; exit 1; }
done

status=0
echo "split runs; median of R=$R interleaved runs; $(nproc) cores; $(date -u +%F)"
echo "kernbench run ${base[*]}"
printf '  %-24s %8s %8s %10s %12s %10s %14s %22s\n' configuration "wall s" "vs ${CONFIGS%% *}" \
  "engine s" batches events bytes "per sim us (b/ev/B)"
ref_wall="" ref_json=""
for cfg in $CONFIGS; do
  wall=$(for ((r = 1; r <= R; r++)); do cat "$WORK/$cfg.$r.time"; done | median)
  eng=$(for ((r = 1; r <= R; r++)); do
          sed -n 's/^engine: [0-9]* events in \([0-9.]*\) s wall.*/\1/p' "$WORK/$cfg.$r.out"
        done | median)
  [[ -n "$ref_wall" ]] || ref_wall=$wall
  cross=$(grep '^cross-process:' "$WORK/$cfg.1.out" || true)
  if [[ -n "$cross" ]]; then
    read -r batches events bytes pb pe pB < <(sed -E 's/^cross-process: [0-9]+ processes, ([0-9]+) batches, ([0-9]+) events, ([0-9]+) bytes.*per simulated us: ([0-9.]+) batches, ([0-9.]+) events, ([0-9.]+) bytes/\1 \2 \3 \4 \5 \6/' <<<"$cross")
    per="$pb / $pe / $pB"
  else
    batches=- events=- bytes=- per="- (one process)"
  fi
  printf '  %-24s %8.3f %7.2fx %10.3f %12s %10s %14s %22s\n' "$cfg: $(config_args "$cfg")" "$wall" \
    "$(echo "$wall / $ref_wall" | bc -l)" "$eng" "$batches" "$events" "$bytes" "$per"
  f="$WORK/$cfg.json"
  if [[ -z "$ref_json" ]]; then ref_json=$f; elif ! cmp -s "$ref_json" "$f"; then
    echo "  RESULTS DIFFER: $cfg"; status=1
  fi
done
[[ $status == 0 ]] && echo "  every configuration wrote identical --json"
exit $status
