#include "tests/config/test_support.hpp"

#include <cstdlib>
#include <fstream>

namespace kb::test {

std::string source_dir() {
  if (const char* env = std::getenv("KB_SOURCE_DIR"); env != nullptr && *env)
    return env;
  return KB_CONFIG_TEST_SOURCE_DIR;
}

std::string data_path(std::string_view name) {
  return source_dir() + "/tests/config/data/" + std::string(name);
}

std::string config_path(std::string_view name) {
  return source_dir() + "/config/" + std::string(name);
}

std::size_t line_containing(const std::string& path, std::string_view text) {
  std::ifstream in(path);
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos)
      return n;
  return 0;
}

impl_catalog test_catalog() {
  impl_catalog c;
  c.add({"pe_cpu_v1", "pe_cpu", "runs the kernel", {}});
  c.add({"pe_scheduler_v1", "pe_scheduler", "plans commands and feeds tiles", {}});
  c.add(
      {"pe_dma_v1", "pe_dma",
       "HBM/NOC <-> TCM transfers",
       {{"dma_setup_cycles", "cycles", "8", "setup paid by every DMA stage"}}});
  c.add({"pe_fetch_store_v1", "pe_fetch_store", "TCM <-> register file", {}});
  c.add({"pe_gemm_v1", "pe_gemm",
         "MAC array",
         {{"mac_rows", "uint", "", "MAC array rows (R)"},
          {"mac_cols", "uint", "", "MAC array columns (C)"}}});
  c.add({"pe_math_v1", "pe_math",
         "SIMD unit",
         {{"lanes", "uint", "64", "elements per cycle (L)"},
          {"pipeline_cycles", "cycles", "4", "pipeline fill"},
          {"cheap_op_cycles", "cycles", "1", "add/mul/relu/bias/scale"},
          {"expensive_op_cycles", "cycles", "4", "exp/dequant/rsqrt"}}});
  c.add({"pe_tcm_v1", "pe_tcm",
         "scratchpad",
         {{"bandwidth_gbps", "GB/s", "512", "fetch/store bandwidth"}}});
  c.add({"pe_mmu_passthrough", "pe_mmu", "address translation", {}});
  c.add({"xbar_v1", "xbar",
         "PE_DMA <-> HBM crossbar",
         {{"latency_ns", "ns", "2", "added to head and tail"}}});
  c.add({"hbm_ctrl_v1", "hbm_ctrl",
         "HBM controller",
         {{"bandwidth_gbps", "GB/s", "512", "service bandwidth"},
          {"latency_ns", "ns", "100", "access latency"}}});
  c.add({"noc_v1", "noc",
         "cube network",
         {{"forward_latency_ns", "ns", "4", "forwarding delay"}}});
  c.add({"sram_v1", "sram",
         "shared SRAM",
         {{"bandwidth_gbps", "GB/s", "512", "service bandwidth"},
          {"latency_ns", "ns", "20", "access latency"}}});
  c.add({"m_cpu_v1", "m_cpu", "kernel launch fan-out", {}});
  c.add({"hbm_ctrl_channels_v1",
         "hbm_ctrl",
         "HBM controller, per channel",
         {{"bandwidth_gbps", "GB/s", "512", "service bandwidth"},
          {"latency_ns", "ns", "100", "access latency"},
          {"channels", "uint", "1", "channels"},
          {"interleave_bytes", "uint", "256", "granule"}}});
  return c;
}

} // namespace kb::test
