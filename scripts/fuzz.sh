#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang + ASan/UBSan) into
# build-fuzz/ and runs each for a bounded time from its committed seeds.
#
#   scripts/fuzz.sh [SECONDS]      default 20 seconds per target
#   KB_FUZZ_RUNS=1000000 scripts/fuzz.sh 0
#                                  1 M executions per target, however long
#
# Environment: KB_JOBS (default 2), KB_FUZZ_TARGETS (default: all eight),
# KB_FUZZ_RUNS (default none: SECONDS bound the run; set: that many
# executions, and SECONDS, unless 0, bounds them too).
# New inputs go to a scratch corpus under build-fuzz/corpus/; the committed
# seeds are only read. Fails if any target finds a crash, leak, timeout or
# out-of-memory (the reproducer is left in build-fuzz/). See docs/testing.md.
set -euo pipefail
KB_SCRIPT=fuzz
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
  local seconds="${1:-20}" dir="$KB_ROOT/build-fuzz" t0 t
  [[ "$seconds" =~ ^[0-9]+$ ]] || kb_die "SECONDS must be a whole number, got '$seconds'"
  local runs="${KB_FUZZ_RUNS:-}" bound=()
  [[ -z "$runs" || "$runs" =~ ^[1-9][0-9]*$ ]] || kb_die "KB_FUZZ_RUNS must be a positive whole number, got '$runs'"
  [[ "$seconds" != 0 ]] && bound+=(-max_total_time="$seconds")
  [[ -n "$runs" ]] && bound+=(-runs="$runs")
  [[ ${#bound[@]} -gt 0 ]] || kb_die "SECONDS 0 needs KB_FUZZ_RUNS (else a target would run forever)"
  command -v clang++-14 >/dev/null || kb_die "clang++-14 not found: run scripts/setup.sh"
  local targets
  read -r -a targets <<<"${KB_FUZZ_TARGETS:-fuzz_topology fuzz_schedule fuzz_trace fuzz_batch fuzz_npy fuzz_kernel_args fuzz_trace_stream}"
  t0=$(kb_now)
  if [[ ! -f "$dir/CMakeCache.txt" ]]; then
    cmake -S "$KB_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 \
      -DKB_FUZZ=ON -DKB_SANITIZERS=address,undefined \
      -DKB_ENABLE_TESTS=OFF -DKB_ENABLE_BENCH=OFF >/dev/null
  fi
  cmake --build "$dir" --parallel "${KB_JOBS:-2}" --target "${targets[@]}"
  kb_log "fuzz build took $(kb_since "$t0") s; running ${#targets[@]} target(s) (${bound[*]})"
  for t in "${targets[@]}"; do
    mkdir -p "$dir/corpus/$t"
    (cd "$dir" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      "$dir/tests/fuzz/$t" "$dir/corpus/$t" "$KB_ROOT/tests/fuzz/corpus/$t" \
      "${bound[@]}" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      2>"$dir/$t.log") || { tail -40 "$dir/$t.log" >&2; kb_die "$t failed (log: $dir/$t.log)"; }
    kb_log "$t: $(grep -E '^stat::number_of_executed_units' "$dir/$t.log" | awk '{print $2}') executions," \
           "$(grep -oE 'cov: [0-9]+' "$dir/$t.log" | tail -1)"
  done
}

main "$@"
