#pragma once
// Helpers for the PE pipeline model tests: run the built-in driver on the
// default topology and pick stage records out of the trace.

#include "runtime/run/machine_run.hpp"
#include "runtime/report/run_report.hpp"

#include <string>
#include <vector>

namespace kb::test {

std::string config_file(const std::string& name);

/// A GEMM command on sip0.cube0.pe0 with A, B, C at 0, 16 MiB, 32 MiB.
gemm_plan_args gemm(uint32_t m, uint32_t k, uint32_t n, uint32_t tile = 128);
math_plan_args math(math_op op, uint32_t m, uint32_t n, uint32_t tile = 128);

/// Runs `commands` on pe0 of the default topology.
machine_run run_pe0(const std::vector<pe_command>& commands, size_t threads = 1,
                   bool trace_hops = false);

/// Runs `commands` on pe0 of the topology in `topology_file`.
machine_run run_pe0_on(const std::string& topology_file, const std::vector<pe_command>& commands);

/// Stage records of `type` for command `cmd`, in start order.
std::vector<stage_record> stages_of(const machine_run& r, stage_type type,
                                    uint64_t cmd = 1);
/// [start, end] in ns of each record.
std::vector<std::pair<uint64_t, uint64_t>> spans_ns(const std::vector<stage_record>& v);

/// The kernel launch on the default machine (DESIGN §4): M_CPU -> NOC 1 ns,
/// the NOC's 4 ns, NOC -> PE_CPU 1 ns; PE_CPU issues its first command then.
inline constexpr uint64_t launch_ns = 6;
inline constexpr uint64_t launch_ps = launch_ns * 1000;
/// `spans` (ns, counted from the first issue) as the run shows them.
inline std::vector<std::pair<uint64_t, uint64_t>>
after_launch(std::vector<std::pair<uint64_t, uint64_t>> spans) {
  for (auto& [a, b] : spans) {
    a += launch_ns;
    b += launch_ns;
  }
  return spans;
}

uint64_t figure(const machine_run& r, const std::string& node, const std::string& name);

} // namespace kb::test
