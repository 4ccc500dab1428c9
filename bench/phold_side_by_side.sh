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
#   bench/phold_side_by_side.sh --sweep          events/LP {16,64} x lookahead {1000,4000}
#   R=5 THREADS="1 2 4" bench/phold_side_by_side.sh
#
# Parameters (env var / option, default): LPS --lps 1024, REMOTE --remote 0.25,
# EVENTS_PER_LP --events-per-lp 16, LOOKAHEAD_PS --lookahead-ps 1000,
# MEAN_PS --mean-ps 1000, END_PS --end-ps 1000000. Other options (e.g.
# --seed, --shards, --procs) are passed to every run of the engine and of the
# yardstick alike, so pass only options both accept.
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

# One run. $1 = label (seq or tN), $2 = events/lp, $3 = lookahead; appends
# "label events/s sync/event digest" to $WORK/results.
run_one() {
  local label=$1 epl=$2 la=$3 mode out
  if [[ $label == seq ]]; then mode=(--sequential); else mode=(--threads "${label#t}"); fi
  out=$("$EXE" phold --lps "$LPS" --remote "$REMOTE" --events-per-lp "$epl" \
        --lookahead-ps "$la" --mean-ps "$MEAN_PS" --end-ps "$END_PS" \
        "${mode[@]}" "${EXTRA[@]}" 2>&1) ||
    { printf '%s\n' "$out" >&2; kb_die "kernbench phold ${mode[*]} failed"; }
  awk -v label="$label" '
    /^events\/s /        { eps = $2 }
    /^sync msgs\/event / { sync = $3 }
    /^digest /           { dig = $2 }
    END {
      if (eps == "" || dig == "") exit 1
      print label, eps, (sync == "" ? "-" : sync), dig
    }' <<<"$out" >>"$WORK/results" ||
    { printf '%s\n' "$out" >&2; kb_die "could not parse the output of kernbench phold ${mode[*]}"; }
}

# Runs every configuration R times, interleaved, for one parameter point.
run_point() {
  local epl=$1 la=$2 rep label threads
  read -ra threads <<<"$THREADS"
  : >"$WORK/results"
  for ((rep = 1; rep <= R; rep++)); do
    for label in seq "${threads[@]/#/t}"; do
      run_one "$label" "$epl" "$la"
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
      printf "%s%-22s %14.0f %8.2fx %16s  %s\n", prefix, name, m,
             (base > 0 ? m / base : 0), s, agree
    }
    {
      label = $1; n = ++count[label]; eps[label, n] = $2 + 0; sync[label, n] = $3 + 0
      digests[$4] = 1
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
  printf "%s%-22s %14s %9s %16s  %s\n" "$prefix" configuration "events/s (med)" \
    "vs seq" "sync msgs/event" "digests agree"
}

params_line() {
  local extra=""
  ((${#EXTRA[@]} == 0)) || extra=" ${EXTRA[*]}"
  echo "phold: lps=$LPS remote=$REMOTE mean_ps=$MEAN_PS end_ps=$END_PS $*$extra;" \
       "median of R=$R interleaved runs; $(nproc) cores"
}

run_single() {
  params_line "events_per_lp=$EVENTS_PER_LP lookahead_ps=$LOOKAHEAD_PS"
  run_point "$EVENTS_PER_LP" "$LOOKAHEAD_PS"
  print_header ""
  summarise_point ""
}

run_sweep() {
  local epl la rc status=0
  params_line "(sweep: events_per_lp x lookahead_ps)"
  print_header "$(printf '%5s %9s  ' epl lookahead)"
  for epl in 16 64; do
    for la in 1000 4000; do
      run_point "$epl" "$la"
      rc=0
      summarise_point "$(printf '%5s %9s  ' "$epl" "$la")" || rc=$?
      ((rc == 0 || rc == 3)) || return "$rc"
      ((rc == 0)) || status=3
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
