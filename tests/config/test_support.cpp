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

kind_catalog test_catalog() {
  kind_catalog c;
  c.add({"pe_cpu", "runs the kernel", {}});
  c.add({"pe_scheduler", "plans commands and feeds tiles", {}});
  c.add(
      {"pe_dma",
       "HBM/NOC <-> TCM transfers",
       {{"dma_setup_cycles", "cycles", "8", "setup paid by every DMA stage"}}});
  c.add({"pe_fetch_store", "TCM <-> register file", {}});
  c.add({"pe_gemm",
         "MAC array",
         {{"mac_rows", "uint", "", "MAC array rows (R)"},
          {"mac_cols", "uint", "", "MAC array columns (C)"}}});
  c.add({"pe_math",
         "SIMD unit",
         {{"lanes", "uint", "64", "elements per cycle (L)"},
          {"pipeline_cycles", "cycles", "4", "pipeline fill"},
          {"cheap_op_cycles", "cycles", "1", "add/mul/relu/bias/scale"},
          {"expensive_op_cycles", "cycles", "4", "exp/dequant/rsqrt"}}});
  c.add({"pe_tcm",
         "scratchpad",
         {{"bandwidth_gbps", "GB/s", "512", "fetch/store bandwidth"}}});
  c.add({"pe_mmu", "address translation", {}});
  c.add({"xbar",
         "PE_DMA <-> HBM crossbar",
         {{"latency_ns", "ns", "2", "added to head and tail"}}});
  c.add({"hbm_ctrl",
         "HBM controller",
         {{"bandwidth_gbps", "GB/s", "512", "service bandwidth"},
          {"latency_ns", "ns", "100", "access latency"}}});
  c.add({"noc",
         "cube network",
         {{"forward_latency_ns", "ns", "4", "forwarding delay"}}});
  c.add({"sram",
         "shared SRAM",
         {{"bandwidth_gbps", "GB/s", "512", "service bandwidth"},
          {"latency_ns", "ns", "20", "access latency"}}});
  c.add({"m_cpu", "kernel launch fan-out", {}});
  return c;
}

impl_registry default_registry() {
  return load_impl_registry(config_path("components.yaml"));
}

} // namespace kb::test
