#include "tests/pipeline/pipeline_support.hpp"
#include "tests/command_figure.hpp"

#include <cstdlib>
#include <stdexcept>

namespace kb::test {

std::string config_file(const std::string& name) {
  const char* env = std::getenv("KB_SOURCE_DIR");
  return std::string(env && *env ? env : KB_TEST_SOURCE_DIR) + "/config/" + name;
}

gemm_plan_args gemm(uint32_t m, uint32_t k, uint32_t n, uint32_t tile) {
  gemm_plan_args g;
  g.m = m;
  g.k = k;
  g.n = n;
  g.tile_m = g.tile_k = g.tile_n = tile;
  g.in_dtype = dtype::f16;
  g.a_addr = 0;
  g.b_addr = 16u << 20;
  g.c_addr = 32u << 20;
  return g;
}

math_plan_args math(math_op op, uint32_t m, uint32_t n, uint32_t tile) {
  math_plan_args a;
  a.m = m;
  a.n = n;
  a.tile_m = a.tile_n = tile;
  a.op = op;
  a.in_dtype = dtype::f16;
  a.src_addr = 0;
  a.dst_addr = 16u << 20;
  return a;
}

machine_run run_pe0(const std::vector<pe_command>& commands, size_t threads,
                   bool trace_hops) {
  auto prog = std::make_shared<pe_program>();
  prog->commands = commands;
  return run_machine(config_file("topology.yaml"),
                    {{"sip0.cube0.pe0", prog}}, threads, true, trace_hops);
}

machine_run run_pe0_on(const std::string& topology_file, const std::vector<pe_command>& commands) {
  auto prog = std::make_shared<pe_program>();
  prog->commands = commands;
  return run_machine(topology_file, {{"sip0.cube0.pe0", prog}}, 1,
                    true, false);
}

std::vector<stage_record> stages_of(const machine_run& r, stage_type type, uint64_t cmd) {
  std::vector<stage_record> out;
  for (const auto& s : stage_records(r.records))
    if (s.type == type && s.command == cmd)
      out.push_back(s);
  return out;
}

std::vector<std::pair<uint64_t, uint64_t>> spans_ns(const std::vector<stage_record>& v) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& s : v)
    out.emplace_back(s.start.ps() / 1000, s.end.ps() / 1000);
  return out;
}

uint64_t figure(const machine_run& r, const std::string& node, const std::string& name) {
  return figure_or_command(r.result, node, name);
}

} // namespace kb::test
