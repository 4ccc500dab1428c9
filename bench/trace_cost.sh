#!/usr/bin/env bash
# What message-level tracing costs (issue 32's performance goal): the
# 64-PE cube (`kernbench topology scale --sips 1 --cubes 1 --pes 64`),
# --pes all, a 1024^3 f16 GEMM per PE, 1 thread, run untraced, with the
# stages streamed (`--trace-stream`) and with every hop streamed
# (`--trace-stream --trace-hops`). Each configuration runs R times,
# interleaved. Prints per configuration the median whole-process wall time
# and peak RSS, their ratio to the untraced run (goal with hops: wall <= 2x,
# RSS <= 1.2x), the stream's size and records; then one more run each with
# --json, checked identical (tracing never changes results; exit 1 if not).
#
#   bench/trace_cost.sh                        R=3
#   R=5 ARGS="--M 512 --K 512 --N 512" bench/trace_cost.sh
#   CONFIGS="plain hops" bench/trace_cost.sh
#
# Configurations (CONFIGS, default "plain stages hops"). Also: PES (PEs of
# the cube, default 64), KB_BUILD_DIR (default build), KB_SKIP_BUILD=1.
set -euo pipefail
KB_SCRIPT=trace-bench
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

R=${R:-3}
CONFIGS=${CONFIGS:-plain stages hops}
PES=${PES:-64}
ARGS=${ARGS:---M 1024 --K 1024 --N 1024}
kb_bench_start "$@"
median() { kb_median; }
# A --json file less how it was run (command line) and its wall times.
results() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("invocation",None); d.pop("timings",None); print(json.dumps(d,sort_keys=True))' "$1"; }

"$EXE" topology scale --sips 1 --cubes 1 --pes "$PES" --out "$WORK/cube.yaml"

# configuration -> kernbench options
config_args() {
  case $1 in
    plain) echo "" ;;
    stages) echo "--trace-stream $WORK/$1.kbtrace" ;;
    hops) echo "--trace-stream $WORK/$1.kbtrace --trace-hops" ;;
    *) kb_die "unknown configuration '$1' (plain, stages, hops)" ;;
  esac
}

read -r -a base <<<"--topology $WORK/cube.yaml --pes all --threads 1 --quiet $ARGS"
for ((r = 1; r <= R; r++)); do
  for cfg in $CONFIGS; do
    read -r -a extra <<<"$(config_args "$cfg")"
    log="$WORK/$cfg.$r"
    # The previous run's stream is removed first: replacing a file frees
    # its blocks (0.05 s for 129 MB here), a cost of running twice.
    rm -f "$WORK/$cfg.kbtrace"
    t0=$EPOCHREALTIME
    /usr/bin/time -f "%M" -o "$log.rss" "$EXE" run "${base[@]}" "${extra[@]}" \
      >"$log.out" 2>"$log.err" ||
      { echo "FAILED: kernbench run ${base[*]} ${extra[*]}"; cat "$log.err"; exit 1; }
    echo "$EPOCHREALTIME - $t0" | bc -l >"$log.wall"
    [[ ! -f "$WORK/$cfg.kbtrace" ]] || stat -c %s "$WORK/$cfg.kbtrace" >"$log.size"
  done
done
for cfg in $CONFIGS; do
  read -r -a extra <<<"$(config_args "$cfg")"
  "$EXE" run "${base[@]}" "${extra[@]}" --json "$WORK/$cfg.json" >"$WORK/$cfg.jout" 2>"$WORK/$cfg.err" ||
    { echo "FAILED: kernbench run ${base[*]} ${extra[*]} --json"; cat "$WORK/$cfg.err"; exit 1; }
done

status=0
echo "trace cost; median of R=$R interleaved runs; $(nproc) cores; $(date -u +%F)"
echo "kernbench run ${base[*]}"
printf '  %-10s %8s %8s %9s %8s %10s %12s\n' configuration "wall s" "vs ${CONFIGS%% *}" \
  "RSS MiB" "vs ${CONFIGS%% *}" "stream MB" records
ref_wall="" ref_rss="" ref_json=""
for cfg in $CONFIGS; do
  wall=$(for ((r = 1; r <= R; r++)); do cat "$WORK/$cfg.$r.wall"; done | median)
  rss=$(for ((r = 1; r <= R; r++)); do cat "$WORK/$cfg.$r.rss"; done | median)
  rss=$(echo "$rss / 1024" | bc -l)
  [[ -n "$ref_wall" ]] || { ref_wall=$wall; ref_rss=$rss; }
  size=- records=-
  if [[ -f "$WORK/$cfg.1.size" ]]; then
    size=$(printf '%.1f' "$(echo "$(cat "$WORK/$cfg.1.size") / 1000000" | bc -l)")
    records=$("$EXE" trace stats "$WORK/$cfg.kbtrace" 2>/dev/null |
                sed -n 's/^trace: \([0-9]*\) records.*/\1/p' | head -1)
    records=${records:--}
  fi
  printf '  %-10s %8.3f %7.2fx %9.1f %7.2fx %10s %12s\n' "$cfg" "$wall" \
    "$(echo "$wall / $ref_wall" | bc -l)" "$rss" "$(echo "$rss / $ref_rss" | bc -l)" "$size" "$records"
  f="$WORK/$cfg.json"
  if [[ -z "$ref_json" ]]; then ref_json=$f; elif ! cmp -s <(results "$ref_json") <(results "$f"); then
    echo "  RESULTS DIFFER: $cfg"; status=1
  fi
done
[[ $status == 0 ]] && echo "  every configuration wrote the same results (--json less its invocation and timings)"
exit $status
