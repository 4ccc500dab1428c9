#!/usr/bin/env bash
# Engine speed on the machine model (issue 10): `kernbench run` cases,
# each configuration repeated R times with the configurations of a case
# interleaved (drift in machine load hits all alike). Prints the medians of
# whole-process wall time, engine events/s, windows (safe-time advances),
# sync messages per event, the time outside the event loop (set-up, collection,
# report, teardown: `--timings`), peak RSS of runs without --json (as users
# run it), and checks that every configuration of a case writes the same
# --json results (one untimed run each, compared up to `invocation`; exit 1
# if not).
#
#   bench/pe_model_speed.sh              all three cases, R=5
#   R=3 CASES="one_pe" bench/pe_model_speed.sh
#   R=1 CASES="pes4096 pes16384" bench/pe_model_speed.sh   (issue 31; minutes)
#
# Cases (CASES, default the first four):
#   one_pe    one PE, 2048^3 f16 GEMM in 128^3 tiles (4,096 tiles), 1 thread
#   cube64    64 PEs of one cube, 512^3 f16 GEMM each, 2 threads
#   pes1024   4 SIPs x 4 cubes x 64 PEs (config/scale/4sip_4cube_64pe.yaml),
#             512^3 f16 GEMM per PE, --pes all, 1 and 2 threads
#   remote1024  the same with --placement remote-cube: every PE reads its B
#             operand from the neighbouring cube's HBM over UCIe (issue 11's
#             goal), 1 and 2 threads
#   pes4096   16 SIPs (config/scale/16sip_4cube_64pe.yaml), the same per PE,
#             1 and 2 threads
#   pes16384  64 SIPs (config/scale/64sip_4cube_64pe.yaml), the same, 1 and
#             2 threads
# Each case runs --delivery direct and --delivery mailbox (the lookahead
# windows of advance/report messages, the engine before ADR-0009) side by
# side; pes1024 runs mailbox on 1 thread only (it is slow).
# Also: KB_PIN=CPU runs the one-thread configurations on that CPU only
# (taskset; on this 2-vCPU VM unpinned runs of a short case fall into two
# clusters ~30% apart, pinned ones rarely), KB_BUILD_DIR (default build),
# KB_SKIP_BUILD=1, and KB_BASELINE=PATH
# (another kernbench binary, e.g. one saved before a change): each
# configuration also runs it, interleaved with this build's runs, its rows
# marked "base" and this build's "new"; its --json results must be the same
# up to its version and the keys its schema lacks (named when there are any).
#
#   KB_BASELINE=/tmp/kb-base/kernbench R=5 CASES="one_pe remote1024" \
#     bench/pe_model_speed.sh
set -euo pipefail
KB_SCRIPT=pe-bench
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

R=${R:-5}
CASES=${CASES:-one_pe cube64 pes1024 remote1024}
kb_bench_start "$@"
median() { kb_median; }

# case name -> arguments
case_args() {
  case $1 in
    one_pe) echo "--M 2048 --K 2048 --N 2048 --tile 128 128 128 --dtype f16" ;;
    cube64) echo "--topology config/scale/1sip_4cube_64pe.yaml --pes 64 --M 512 --K 512 --N 512" ;;
    pes1024) echo "--topology config/scale/4sip_4cube_64pe.yaml --pes all --M 512 --K 512 --N 512" ;;
    remote1024) echo "--topology config/scale/4sip_4cube_64pe.yaml --pes all --M 512 --K 512 --N 512 --placement remote-cube" ;;
    pes4096) echo "--topology config/scale/16sip_4cube_64pe.yaml --pes all --M 512 --K 512 --N 512" ;;
    pes16384) echo "--topology config/scale/64sip_4cube_64pe.yaml --pes all --M 512 --K 512 --N 512" ;;
    *) kb_die "unknown case '$1' (one_pe, cube64, pes1024, remote1024, pes4096, pes16384)" ;;
  esac
}
# case name -> configurations "delivery:threads"
case_configs() {
  case $1 in
    one_pe) echo "direct:1 mailbox:1" ;;
    cube64) echo "direct:2 mailbox:2" ;;
    pes1024) echo "direct:1 direct:2 mailbox:1" ;;
    remote1024 | pes4096 | pes16384) echo "direct:1 direct:2" ;;
  esac
}

# binaries: label:path ("new" is this build)
bins="new:$EXE"
if [[ -n ${KB_BASELINE:-} ]]; then
  [[ -x $KB_BASELINE ]] || kb_die "KB_BASELINE=$KB_BASELINE is not an executable"
  bins="base:$KB_BASELINE $bins"
fi

if [[ -n ${KB_PIN:-} ]]; then
  command -v taskset >/dev/null || kb_die "KB_PIN=$KB_PIN: taskset (util-linux) is not installed"
  taskset -c "$KB_PIN" true 2>/dev/null || kb_die "KB_PIN=$KB_PIN: not a CPU this process may run on"
fi

status=0
printf '%s\n' "pe model speed; median of R=$R interleaved runs; $(nproc) cores; $(date -u +%F)"
for c in $CASES; do
  read -r -a args <<<"$(case_args "$c")"
  configs=$(case_configs "$c")
  for ((r = 1; r <= R; r++)); do
    for cfg in $configs; do
      for bin in $bins; do
        b=${bin%%:*} exe=${bin#*:}
        d=${cfg%%:*} t=${cfg##*:}
        log="$WORK/$c.$b.$d.$t.$r"
        # Timed as users run it (no --json: that keeps every stage's records
        # to the end); the first round also writes --json, untimed, to check
        # that every configuration gives the same results.
        pin=()
        [[ -n ${KB_PIN:-} && $t == 1 ]] && pin=(taskset -c "$KB_PIN")
        /usr/bin/time -f "%e %M" -o "$log.time" "${pin[@]}" "$exe" run --quiet --timings "${args[@]}" \
          --delivery "$d" --threads "$t" >"$log.out" 2>"$log.err" ||
          { echo "FAILED: $exe run ${args[*]} --delivery $d --threads $t"; cat "$log.err"; exit 1; }
        if ((r == 1)); then
          "$exe" run --quiet "${args[@]}" --delivery "$d" --threads "$t" --json "$log.json" \
            >/dev/null 2>"$log.err" ||
            { echo "FAILED: $exe run ${args[*]} --delivery $d --threads $t --json"; exit 1; }
        fi
      done
    done
  done
  echo
  echo "case $c: kernbench run ${args[*]}"
  printf '  %-22s %10s %10s %14s %10s %12s %10s %8s\n' configuration "wall s" "outside s" "events/s" events windows "sync/ev" "RSS MiB"
  declare -A ref=()
  for cfg in $configs; do
   for bin in $bins; do
    b=${bin%%:*}
    d=${cfg%%:*} t=${cfg##*:}
    p="$WORK/$c.$b.$d.$t"
    wall=$(for ((r = 1; r <= R; r++)); do cut -d' ' -f1 "$p.$r.time"; done | median)
    rss=$(for ((r = 1; r <= R; r++)); do cut -d' ' -f2 "$p.$r.time"; done | median)
    outside=$(for ((r = 1; r <= R; r++)); do awk '/^  outside the event loop/ { print $(NF - 2) }' "$p.$r.out"; done | median)
    eps=$(for ((r = 1; r <= R; r++)); do sed -n 's/.*wall (\([0-9]*\) events\/s).*/\1/p' "$p.$r.out"; done | median)
    line=$(grep '^engine:' "$p.1.out")
    events=$(sed -n 's/^engine: \([0-9]*\) events.*/\1/p' <<<"$line")
    windows=$(sed -n 's/.*, \([0-9]*\) windows.*/\1/p' <<<"$line")
    sync=$(sed -n 's/.* \([0-9.]*\) sync messages per event.*/\1/p' <<<"$line")
    label="$d, $t thr"
    [[ -n ${KB_BASELINE:-} ]] && label="$b $label"
    printf '  %-22s %10.3f %10.3f %14.0f %10s %12s %10s %8.0f\n' "$label" "$wall" "$outside" "$eps" "$events" "$windows" "$sync" "$(echo "$rss / 1024" | bc -l)"
    # The results: everything before `invocation` (how the run was started
    # and its timings differ between configurations by design).
    # Each build's configurations against that build's first, byte for
    # byte; the baseline against this build below (another build's JSON
    # names another version and may lack what the schema gained since).
    f="$p.1.results"
    sed '/^  "invocation": {/,$d' "$p.1.json" >"$f"
    if [[ -z ${ref[$b]:-} ]]; then ref[$b]=$f; elif ! cmp -s "${ref[$b]}" "$f"; then
      echo "  RESULTS DIFFER: $f vs ${ref[$b]}"; status=1
    fi
   done
  done
  if [[ -n ${ref[base]:-} ]]; then
    # The same results up to the version (`kernbench`), the topology file's
    # path (the baseline may read its own copy) and the keys the
    # baseline's schema lacks, which are named.
    if ! python3 - "${ref[base]%.results}.json" "${ref[new]%.results}.json" <<'PY'
import json, sys
base, new = (json.load(open(f)) for f in sys.argv[1:3])
added, differ = [], []
def walk(b, n, at):
    if isinstance(b, dict) and isinstance(n, dict):
        for k in n:
            if k not in b:
                added.append(at + k)
        for k in b:
            if k not in n:
                differ.append(at + k + " (only in the baseline)")
            else:
                walk(b[k], n[k], at + k + ".")
    elif b != n:
        differ.append(at.rstrip("."))
for k in ("invocation", "timings", "kernbench", "schema_version", "topology"):
    base.pop(k, None); new.pop(k, None)
walk(base, new, "")
if added:
    print("  results against the baseline: equal but for keys it lacks: " + ", ".join(sorted(set(added))[:8]))
for d in differ[:8]:
    print("  RESULTS DIFFER from the baseline at " + d)
sys.exit(1 if differ else 0)
PY
    then status=1; fi
  fi
  [[ $status == 0 ]] && echo "  all runs wrote the same --json"
done
exit $status
