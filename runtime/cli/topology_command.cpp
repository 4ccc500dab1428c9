#include "runtime/cli/topology_command.hpp"

#include "runtime/config/machine_limits.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/io/atomic_file.hpp"
#include "runtime/io/data_stdout.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kb {

namespace {

// -- the machine's parts ------------------------------------------------------

/// The cube of config/scale/4sip_4cube_64pe.yaml (config/topology.yaml's,
/// DESIGN §4 timing), written as it is there: one entry per node.
constexpr std::array<std::string_view, 8> pe_components = {
  "pe_cpu: {impl: pe_cpu_v1}",
  "pe_scheduler: {impl: pe_scheduler_v1}",
  "pe_dma: {impl: pe_dma_v1, dma_setup_cycles: 8}",
  "pe_fetch_store: {impl: pe_fetch_store_v1}",
  "pe_gemm: {impl: pe_gemm_v1, mac_rows: 32, mac_cols: 32}",
  "pe_math: {impl: pe_math_v1, lanes: 64, pipeline_cycles: 4, cheap_op_cycles: 1, "
  "expensive_op_cycles: 4}",
  "pe_tcm: {impl: pe_tcm_v1, bandwidth_gbps: 512}",
  "pe_mmu: {impl: pe_mmu_passthrough}",
};
constexpr std::array<std::string_view, 5> cube_components = {
  "xbar: {impl: xbar_v1, latency_ns: 2}",
  "hbm: {kind: hbm_ctrl, impl: hbm_ctrl_v1, bandwidth_gbps: 512, latency_ns: 100}",
  "noc: {impl: noc_v1, forward_latency_ns: 4}",
  "sram: {impl: sram_v1, bandwidth_gbps: 512, latency_ns: 20}",
  "m_cpu: {impl: m_cpu_v1}",
};
constexpr std::string_view cube_links =
  "  links:\n"
  "    - {from: pe*.pe_dma, to: xbar, latency_ns: 1, bandwidth_gbps: 256, bidirectional: true}\n"
  "    - {from: xbar, to: hbm, latency_ns: 1, bandwidth_gbps: 512, bidirectional: true}\n"
  "    - {from: pe*.pe_dma, to: noc, latency_ns: 1, bandwidth_gbps: 256, bidirectional: true}\n"
  "    - {from: noc, to: sram, latency_ns: 1, bandwidth_gbps: 256, bidirectional: true}\n"
  "    - {from: m_cpu, to: noc, latency_ns: 1, bandwidth_gbps: 256, bidirectional: true}\n"
  "    - {from: noc, to: pe*.pe_cpu, latency_ns: 1, bandwidth_gbps: 256, bidirectional: true}\n"
  "    # remote traffic reaches the HBM through the XBAR; other PEs' TCMs (DMA port)\n"
  "    - {from: noc, to: xbar, latency_ns: 1, bandwidth_gbps: 256, bidirectional: true}\n"
  "    - {from: noc, to: pe*.pe_tcm, latency_ns: 1, bandwidth_gbps: 256, bidirectional: true}\n";

/// The fabric between cubes (DESIGN §4, ADR-0012).
struct fabric_link {
  unsigned latency_ns, bandwidth_gbps;
};
constexpr fabric_link inter_sip{500, 100};
constexpr fabric_link ucie{10, 256};

// -- the machine --------------------------------------------------------------

struct scale_args {
  uint32_t sips = 0, cubes = 0, pes = 0;
  std::string out = data_stdout::name;
};

/// rows x cols = n with rows <= cols, as square as n allows (12: 3 x 4; 7: 1 x 7).
struct grid {
  uint32_t rows, cols;
};
grid most_square(uint32_t n) {
  uint32_t rows = 1;
  for (uint32_t r = 1; r * r <= n; ++r)
    if (n % r == 0)
      rows = r;
  return {rows, n / rows};
}

/// What a link list joins, for the comments: nothing, a pair, or more.
std::string shape(uint32_t count, std::string_view one, std::string_view many) {
  return count == 1 ? fmt::format("none (one {})", one)
                    : std::string(count == 2 ? "a pair" : many);
}

void add_link(std::string& s, std::string_view from, std::string_view to, fabric_link l) {
  fmt::format_to(std::back_inserter(s),
                 "    - {{from: {}, to: {}, latency_ns: {}, bandwidth_gbps: {}, "
                 "bidirectional: true}}\n",
                 from, to, l.latency_ns, l.bandwidth_gbps);
}

/// The whole topology file; its header names the command that writes it
/// (without --out, so that the bytes do not depend on where they go).
std::string scale_topology(const scale_args& a) {
  const grid mesh = most_square(a.cubes);
  const grid pes = most_square(a.pes);
  const std::string ring = shape(a.sips, "SIP", "a ring");
  const std::string cubes = shape(a.cubes, "cube", fmt::format("{}x{} mesh", mesh.rows, mesh.cols));
  std::string s = fmt::format(
    "# kernbench scale-out machine: {} SIP(s) x {} cube(s) x {} PEs ({} PEs),\n"
    "# each cube as in config/topology.yaml (DESIGN §4 timing).\n"
    "# Written by `kernbench topology scale --sips {} --cubes {} --pes {}`\n"
    "# (config/scale/README.md says more).\n"
    "#\n"
    "# The fabric (DESIGN §4), so that any PE reaches any HBM, SRAM and TCM:\n"
    "# - cubes: UCIe links between their NOCs, {} ns, {} GB/s; {}\n"
    "# - SIPs: inter-SIP links between their cube0 NOCs, {} ns, {} GB/s; {}\n"
    "\n"
    "clock_period_ps: 1000\n"
    "pe_wire_latency_cycles: 1\n"
    "pe_queue_depth: 4\n"
    "link_queue_depth: 4\n"
    "\n"
    "system:\n"
    "  sips: {}\n",
    a.sips, a.cubes, a.pes, uint64_t{a.sips} * a.cubes * a.pes, a.sips, a.cubes, a.pes,
    ucie.latency_ns, ucie.bandwidth_gbps, cubes, inter_sip.latency_ns, inter_sip.bandwidth_gbps,
    ring, a.sips);
  if (a.sips > 1) {
    s += fmt::format("  links:\n    # inter-SIP links between the cube0 NOCs ({})\n", ring);
    // Two SIPs: one link (the way back would be the same pair).
    for (uint32_t k = 0; k < (a.sips == 2 ? 1 : a.sips); ++k)
      add_link(s, fmt::format("sip{}.cube0.noc", k),
               fmt::format("sip{}.cube0.noc", (k + 1) % a.sips), inter_sip);
  }
  s += fmt::format("\nsip:\n  cubes: {}\n", a.cubes);
  if (a.cubes > 1) {
    s += fmt::format("  links:\n    # UCIe between the cubes' NOCs ({})\n", cubes);
    // Cube r*cols+c: to its right neighbour, then to the one below.
    for (uint32_t i = 0; i < a.cubes; ++i) {
      const std::string from = fmt::format("cube{}.noc", i);
      if (i % mesh.cols + 1 < mesh.cols)
        add_link(s, from, fmt::format("cube{}.noc", i + 1), ucie);
      if (i + mesh.cols < a.cubes)
        add_link(s, from, fmt::format("cube{}.noc", i + mesh.cols), ucie);
    }
  }
  s += fmt::format("\ncube:\n  pe_layout: {{rows: {}, cols: {}}}\n\n"
                   "  pe_template:\n    components:\n",
                   pes.rows, pes.cols);
  for (std::string_view c : pe_components)
    s += fmt::format("      {}\n", c);
  s += "    # links: the default PE wires (config/topology.yaml lists them)\n\n  components:\n";
  for (std::string_view c : cube_components)
    s += fmt::format("    {}\n", c);
  s += "\n";
  s += cube_links;
  return s;
}

/// The loader refuses a machine of more nodes than kb::max_topology_nodes;
/// the generator refuses to write one.
void check_node_count(const scale_args& a) {
  const uint64_t nodes = uint64_t{a.sips} * a.cubes *
                         (cube_components.size() + uint64_t{a.pes} * pe_components.size());
  if (nodes > max_topology_nodes)
    throw std::invalid_argument(fmt::format(
      "--sips {} --cubes {} --pes {} make {} nodes, more than the limit of {} (every node is "
      "an actor with its own queues and links; a larger machine would not fit in memory)",
      a.sips, a.cubes, a.pes, nodes, max_topology_nodes));
}

} // namespace

CLI::App* add_topology_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<scale_args>();
  auto* cmd = app.add_subcommand("topology", "write topology files (scale)");
  cmd->require_subcommand(1);
  auto* scale = cmd->add_subcommand(
    "scale", "write a scale-out machine: SIPs in a ring, cubes in a 2-D mesh, each cube the one "
             "of config/scale/ (DESIGN §4 timing)");
  const auto count = CLI::Range(uint32_t{1}, max_address_count);
  scale
    ->add_option("--sips", a->sips,
                 "SIPs, in a ring of inter-SIP links between their cube0 NOCs (500 ns, 100 GB/s)")
    ->required()
    ->check(count);
  scale
    ->add_option("--cubes", a->cubes,
                 "cubes per SIP, in the most square rows x cols mesh (rows <= cols) of UCIe "
                 "links between their NOCs (10 ns, 256 GB/s)")
    ->required()
    ->check(count);
  scale->add_option("--pes", a->pes, "PEs per cube, laid out in the most square rows x cols")
    ->required()
    ->check(count);
  scale->add_option("--out", a->out,
                    "write the topology to this file, whole or not at all, instead of standard "
                    "output ('-')");
  scale->footer(fmt::format(
    "At most {} SIPs, cubes per SIP or PEs per cube, and {} nodes in all (a cube is {} nodes "
    "and {} per PE).\n"
    "Example:\n"
    "  kernbench topology scale --sips 16 --cubes 4 --pes 64 --out 16sip.yaml\n"
    "  kernbench run --topology 16sip.yaml --pes all",
    max_address_count, max_topology_nodes, cube_components.size(), pe_components.size()));
  scale->callback([a, &exit_code] {
    check_node_count(*a);
    write_file_atomically(a->out, "--out file", scale_topology(*a));
    exit_code = 0;
  });
  cmd->footer("Example:\n  kernbench topology scale --sips 4 --cubes 4 --pes 64 --out 4sip.yaml");
  return cmd;
}

} // namespace kb
