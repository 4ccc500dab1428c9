#pragma once
// The headline figures of a run, computed once for the readable summary,
// the JSON `summary` object and the CSV row (`run --csv`, `sweep`):
// latency, achieved vs peak FLOP/s and HBM bandwidth, the busiest units.

#include "runtime/report/run_report.hpp"

#include <string>
#include <vector>

namespace kb {

/// One unit lane's busy share of the simulated time.
struct unit_utilisation {
  std::string unit; ///< "sip0.cube0.pe0.pe_gemm/0"
  uint64_t busy_ps = 0;
  double util = 0;  ///< busy / simulated time, 0..1
};

struct run_metrics {
  uint64_t end_ps = 0;          ///< simulated time of the last event
  uint64_t max_latency_ps = 0;  ///< slowest command (issue -> done) over all PEs
  /// The kernel's own latency: host launch -> host receipt of the last
  /// completion (kernel_latency_ps), or on a machine whose kernels start at
  /// 0 without a launch, the last return of a PE's kernel.
  uint64_t kernel_latency_ps = 0;
  uint64_t flops = 0;           ///< of all commands on all PEs
  double achieved_flops = 0;    ///< FLOP/s (OP/s: ops_unit) over the simulated time
  double peak_flops = 0;        ///< the PEs' MACs at their clock and dtype rate
  uint64_t hbm_bytes = 0;       ///< read out of and written into HBM
  double achieved_hbm_bps = 0;  ///< bytes/s over the simulated time
  double peak_hbm_bps = 0;      ///< all cubes' HBM controllers
  std::vector<unit_utilisation> busiest; ///< lanes by busy time, most first
  uint64_t events = 0;          ///< engine events of all nodes
  double wall_s = 0;            ///< the engine's wall time (not deterministic)
};

/// What a run's compute counts, per second: "OP/s" for an integer dtype
/// (i8, i32), "FLOP/s" for a floating one (ADR-0032).
const char* ops_unit(dtype t);

/// The figures of `in`; `busiest` keeps the `top` busiest lanes.
run_metrics compute_metrics(const report_input& in, size_t top = 3);

/// Simulated time of the last event of any node.
uint64_t end_ps(const run_result& r);

/// The kernel's latency as the host sees it (DESIGN §4): from its launch at
/// 0 to its receipt of the last completion, the latest `done_ps` of the
/// M_CPUs that launched PEs; 0 when no M_CPU launched any (a machine
/// without one starts its kernels at 0).
uint64_t kernel_latency_ps(const run_result& r);

} // namespace kb
