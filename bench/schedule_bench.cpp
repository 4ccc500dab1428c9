// Schedules per second for 50-op loops: the cost-based modulo generator, the
// serial generator and the independent validator side by side, over the same
// 64 random problems (runtime/schedule/random_problem.hpp, seeds 1..64).
//
//   build/bench/schedule_bench                      # all three
//   build/bench/schedule_bench --benchmark_filter=modulo

#include "runtime/schedule/random_problem.hpp"
#include "runtime/schedule/schedule.hpp"
#include "runtime/schedule/validator.hpp"

#include <benchmark/benchmark.h>

#include <vector>

namespace {

using namespace kb::sched;

const std::vector<problem>& problems() {
  static const std::vector<problem> ps = [] {
    std::vector<problem> out;
    for (uint64_t seed = 1; seed <= 64; ++seed)
      out.push_back(random_problem(seed, {.min_ops = 50, .max_ops = 50}));
    return out;
  }();
  return ps;
}

void run(benchmark::State& state, strategy s) {
  schedule_options o;
  o.requested = s;
  std::size_t i = 0, at_mii = 0, n = 0;
  for (auto _ : state) {
    const auto& p = problems()[i++ % problems().size()];
    auto a = generate_schedule(p, o);
    benchmark::DoNotOptimize(a);
    at_mii += a.ii && a.ii == a.mii;
    ++n;
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
  if (s == strategy::cost)
    state.counters["at_mii"] = static_cast<double>(at_mii) / static_cast<double>(n);
}

void bm_modulo_50_ops(benchmark::State& state) { run(state, strategy::cost); }
void bm_serial_50_ops(benchmark::State& state) { run(state, strategy::serial); }

void bm_validate_50_ops(benchmark::State& state) {
  std::vector<schedule_analysis> done;
  schedule_options o;
  o.requested = strategy::cost;
  for (const auto& p : problems())
    done.push_back(generate_schedule(p, o));
  std::size_t i = 0, n = 0;
  for (auto _ : state) {
    const std::size_t k = i++ % problems().size();
    auto v = validate_schedule(problems()[k], done[k]);
    benchmark::DoNotOptimize(v);
    ++n;
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
}

BENCHMARK(bm_modulo_50_ops);
BENCHMARK(bm_serial_50_ops);
BENCHMARK(bm_validate_50_ops);

} // namespace

BENCHMARK_MAIN();
