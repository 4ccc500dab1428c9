#!/usr/bin/env bash
# PHOLD side by side on one machine: the sequential yardstick against the
# actor engine with 1 and 2 CAF worker threads, identical parameters, each
# repeated R times with the configurations interleaved (so drift in machine
# load hits all of them alike). Prints median events/s, the ratio to the
# yardstick, sync messages per event, and checks that every digest agrees
# (exit 1 if not).
#
#   bench/phold_side_by_side.sh                  one point, the defaults
#   bench/phold_side_by_side.sh --lps 4096       override a parameter
#   bench/phold_side_by_side.sh --sweep          LPs {1024,4096,16384,65536} x events/LP {16,64}
#                                                x lookahead {1000,4000}
#   R=5 THREADS="1 2 4" bench/phold_side_by_side.sh
#
# Parameters (env var / option, default): LPS --lps 1024, REMOTE --remote 0.25,
# EVENTS_PER_LP --events-per-lp 16, LOOKAHEAD_PS --lookahead-ps 1000,
# MEAN_PS --mean-ps 1000, END_PS --end-ps 1000000. Other options (e.g.
# --seed, --shards, --procs) are passed to every run of the engine and of the
# yardstick alike, so pass only options both accept.
# Every row shows median events/s, the set-up + teardown time (the process's
# wall time outside the event loop: building LPs and links, starting and
# stopping CAF) and the peak RSS of the process (/usr/bin/time -f %M).
# In a sweep the end time shrinks as the LP count grows (END_PS x 1024 /
# LPs) so that every point commits about as many events; the axes can be
# narrowed with SWEEP_LPS, SWEEP_EPL, SWEEP_LA (space-separated lists).
# Also: R (repeats, default 3), THREADS (actor thread counts, default "1 2"),
# KB_BUILD_DIR (default build), KB_SKIP_BUILD=1 (don't run scripts/build.sh).
set -euo pipefail
KB_SCRIPT=phold-bench
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

LPS=${LPS:-1024}
REMOTE=${REMOTE:-0.25}
EVENTS_PER_LP=${EVENTS_PER_LP:-16}
LOOKAHEAD_PS=${LOOKAHEAD_PS:-1000}
MEAN_PS=${MEAN_PS:-1000}
END_PS=${END_PS:-1000000}
R=${R:-3}
THREADS=${THREADS:-1 2}
SWEEP_LPS=${SWEEP_LPS:-1024 4096 16384 65536}
SWEEP_EPL=${SWEEP_EPL:-16 64}
SWEEP_LA=${SWEEP_LA:-1000 4000}
SWEEP=0
EXTRA=()
EXE=""
WORK=""

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

parse_args() {
  while (($#)); do
    local opt=$1 val=""
    case $opt in
      -h|--help) usage; exit 0 ;;
      --sweep) SWEEP=1; shift; continue ;;
      --sequential|--threads|--threads=*)
        kb_die "$opt is chosen by the bench (set THREADS=\"1 2 ...\" instead)" ;;
      --no-spawn) EXTRA+=("$opt"); shift; continue ;;
      --*=*) val=${opt#*=}; opt=${opt%%=*} ;;
      --*) ;;
      *) kb_die "unexpected argument '$opt' (see --help)" ;;
    esac
    if [[ -z "$val" ]]; then
      (($# >= 2)) || kb_die "option $opt needs a value"
      val=$2; shift
    fi
    shift
    case $opt in
      --lps) LPS=$val ;;
      --remote) REMOTE=$val ;;
      --events-per-lp) EVENTS_PER_LP=$val ;;
      --lookahead-ps) LOOKAHEAD_PS=$val ;;
      --mean-ps) MEAN_PS=$val ;;
      --end-ps) END_PS=$val ;;
      *) EXTRA+=("$opt" "$val") ;;
    esac
  done
  [[ "$R" =~ ^[1-9][0-9]*$ ]] || kb_die "R must be a positive integer, got '$R'"
}

ensure_binary() {
  if [[ "${KB_SKIP_BUILD:-}" != 1 ]]; then
    local log
    log=$(KB_TARGETS=kernbench "$KB_ROOT/scripts/build.sh" 2>&1) ||
      { printf '%s\n' "$log" | tail -n 30 >&2; kb_die "build failed (output above)"; }
  fi
  EXE="$KB_BUILD/kernbench"
  [[ -x "$EXE" ]] || kb_die "$EXE not found: run scripts/build.sh first"
}

# One run. $1 = label (seq or tN), $2 = events/lp, $3 = lookahead, $4 = LPs,
# $5 = end time; appends "label events/s sync/event digest setup_s rss_kb"
# to $WORK/results.
run_one() {
  local label=$1 epl=$2 la=$3 lps=$4 end=$5 mode out rss
  if [[ $label == seq ]]; then mode=(--sequential); else mode=(--threads "${label#t}"); fi
  out=$(/usr/bin/time -f "peak_rss_kb %M" "$EXE" phold --lps "$lps" --remote "$REMOTE" \
        --events-per-lp "$epl" --lookahead-ps "$la" --mean-ps "$MEAN_PS" --end-ps "$end" \
        "${mode[@]}" "${EXTRA[@]}" 2>&1) ||
    { printf '%s\n' "$out" >&2; kb_die "kernbench phold ${mode[*]} failed"; }
  awk -v label="$label" '
    /^events\/s /          { eps = $2 }
    /^sync msgs\/event /   { sync = $3 }
    /^digest /             { dig = $2 }
    /^set-up \+ teardown / { setup = $4 }
    /^peak_rss_kb /        { rss = $2 }
    END {
      if (eps == "" || dig == "") exit 1
      print label, eps, (sync == "" ? "-" : sync), dig, (setup == "" ? 0 : setup), (rss == "" ? 0 : rss)
    }' <<<"$out" >>"$WORK/results" ||
    { printf '%s\n' "$out" >&2; kb_die "could not parse the output of kernbench phold ${mode[*]}"; }
}

# Runs every configuration R times, interleaved, for one parameter point.
# $1 = events/lp, $2 = lookahead, $3 = LPs, $4 = end time.
run_point() {
  local epl=$1 la=$2 lps=$3 end=$4 rep label threads
  read -ra threads <<<"$THREADS"
  : >"$WORK/results"
  for ((rep = 1; rep <= R; rep++)); do
    for label in seq "${threads[@]/#/t}"; do
      run_one "$label" "$epl" "$la" "$lps" "$end"
    done
  done
}

# Prints the table rows of one point from $WORK/results; returns 3 if the
# digests differ. $1 = prefix columns (empty outside a sweep).
summarise_point() {
  local prefix=$1
  awk -v prefix="$prefix" -v threads="$THREADS" '
    function median(arr, label,   n, i, j, t, v) {
      n = count[label]
      for (i = 1; i <= n; i++) v[i] = arr[label, i]
      for (i = 2; i <= n; i++)          # insertion sort, n is small
        for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    function row(label, name,   m, s) {
      m = median(eps, label)
      s = label == "seq" ? "-" : sprintf("%.4f", median(sync, label))
      printf "%s%-22s %14.0f %8.2fx %16s %9.3f %9.1f  %s\n", prefix, name, m,
             (base > 0 ? m / base : 0), s, median(setup, label), median(rss, label) / 1024, agree
    }
    {
      label = $1; n = ++count[label]; eps[label, n] = $2 + 0; sync[label, n] = $3 + 0
      digests[$4] = 1; setup[label, n] = $5 + 0; rss[label, n] = $6 + 0
    }
    END {
      nd = 0; for (d in digests) { nd++; last = d }
      agree = nd == 1 ? "yes " last : "NO (" nd " digests)"
      base = median(eps, "seq")
      row("seq", "sequential yardstick")
      nt = split(threads, t, " ")
      for (i = 1; i <= nt; i++) row("t" t[i], "actors, " t[i] " thread" (t[i] == 1 ? "" : "s"))
      exit (nd == 1 ? 0 : 3)
    }' "$WORK/results"
}

print_header() {
  local prefix=$1
  printf "%s%-22s %14s %9s %16s %9s %9s  %s\n" "$prefix" configuration "events/s (med)" \
    "vs seq" "sync msgs/event" "set-up s" "RSS MiB" "digests agree"
}

params_line() {
  local extra=""
  ((${#EXTRA[@]} == 0)) || extra=" ${EXTRA[*]}"
  local lps="lps=$LPS "
  ((SWEEP == 0)) || lps=""
  echo "phold: ${lps}remote=$REMOTE mean_ps=$MEAN_PS end_ps=$END_PS $*$extra;" \
       "median of R=$R interleaved runs; $(nproc) cores"
}

run_single() {
  params_line "events_per_lp=$EVENTS_PER_LP lookahead_ps=$LOOKAHEAD_PS"
  run_point "$EVENTS_PER_LP" "$LOOKAHEAD_PS" "$LPS" "$END_PS"
  print_header ""
  summarise_point ""
}

run_sweep() {
  local lps epl la end rc status=0
  params_line "(sweep: lps x events_per_lp x lookahead_ps; end_ps = $END_PS x 1024 / lps)"
  print_header "$(printf '%6s %5s %9s %9s  ' lps epl lookahead end_ps)"
  for lps in $SWEEP_LPS; do
    end=$((END_PS * 1024 / lps))
    ((end > 0)) || kb_die "END_PS $END_PS is too small for $lps LPs"
    for epl in $SWEEP_EPL; do
      for la in $SWEEP_LA; do
        run_point "$epl" "$la" "$lps" "$end"
        rc=0
        summarise_point "$(printf '%6s %5s %9s %9s  ' "$lps" "$epl" "$la" "$end")" || rc=$?
        ((rc == 0 || rc == 3)) || return "$rc"
        ((rc == 0)) || status=3
      done
    done
  done
  return $status
}

main() {
  parse_args "$@"
  ensure_binary
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  local rc=0
  if ((SWEEP)); then run_sweep || rc=$?; else run_single || rc=$?; fi
  case $rc in
    0) ;;
    3) kb_die "digests differ between configurations: the engine is not deterministic" ;;
    *) kb_die "summarising the results failed (exit $rc)" ;;
  esac
}

main "$@"
