#pragma once
// Test harness for the node kinds in actors/: a stand-in PE_SCHEDULER that
// injects hand-built tile tokens, a raw memory client, and a builder for a
// small cube laid out like config/topology.yaml.

#include "runtime/engine/simulation.hpp"
#include "runtime/machine/fabric_map.hpp"
#include "runtime/plan/pipeline_plan.hpp"

#include <memory>
#include <tuple>

#include <optional>
#include <string>
#include <vector>

namespace kb::test {

/// Stands in for a PE_SCHEDULER: at time 0 sends a token for each tile (in
/// order) to the tile's first stage's component, into the queue of that
/// stage type, naming itself as the scheduler. Records every tile-done
/// notice: figures "done_ps" (arrival time) and "done_tile" (tile id).
class tile_feeder : public node {
public:
  tile_feeder(caf::actor_config& cfg, node_init init,
              std::vector<tile_plan> tiles, uint64_t command);

protected:
  void on_start() override;
  void on_message(sim_event& ev) override;
  void on_finish() override;

private:
  std::vector<tile_plan> tiles_;
  uint64_t command_;
  std::vector<uint64_t> done_ps_, done_tile_;
};

/// Sends one memory request (mem_read, or mem_write when `bytes_on_link`)
/// for `length` bytes at `address` over its only link at time 0. Records the
/// reply's head and tail arrival: figures "reply_head_ps", "reply_tail_ps".
class mem_client : public node {
public:
  mem_client(caf::actor_config& cfg, node_init init, uint64_t address,
             uint32_t length, bool write);

protected:
  void on_start() override;
  void on_message(sim_event& ev) override;
  void on_finish() override;

private:
  uint64_t address_;
  uint32_t length_;
  bool write_;
  std::vector<uint64_t> head_, tail_;
};

/// A simulation built node by node, with the fabric routes build_machine
/// would compute for it: nodes take the fabric role of their last name
/// segment (xbar, noc: forwarders; hbm, sram, pe_tcm: memories; pe_dma,
/// client: requesters). Kinds get `fabric()` in their config; the routes
/// are filled in when the machine runs.
class test_machine {
public:
  void add_node(std::string name, node_factory f);
  void add_link(const std::string& src, const std::string& dst, SimTime latency,
                std::optional<Bandwidth> bw = std::nullopt, uint32_t queue_depth = 0);
  std::shared_ptr<const fabric_map> fabric() const { return fabric_; }
  run_result run(size_t threads = 1);

private:
  simulation sim_;
  std::shared_ptr<fabric_map> fabric_ = std::make_shared<fabric_map>();
  std::vector<std::string> names_;
  std::vector<std::tuple<std::string, std::string, SimTime>> links_;
};

/// What `make_cube` builds: sip0.cube0 with `pes` PEs, each with a
/// pe_scheduler (a tile_feeder fed `tiles[p]`), pe_dma, pe_fetch_store,
/// pe_gemm, pe_math and pe_tcm on the default PE wires (1 ns, depth 4), plus
/// the cube's xbar, hbm, noc and sram (pe_dma <-> xbar 1 ns 256 GB/s,
/// xbar <-> hbm 1 ns 512 GB/s, pe_dma <-> noc and noc <-> sram 1 ns
/// 256 GB/s; depth 4). All kinds take their documented defaults.
struct cube_options {
  uint32_t pes = 1;
  std::vector<std::vector<tile_plan>> tiles{}; ///< per PE (missing: none)
  uint64_t command = 1;
  /// Leave these units out (e.g. "pe_fetch_store"), to provoke errors.
  std::vector<std::string> omit{};
  std::string cube = "sip0.cube0"; ///< where the cube sits
  /// NOC <-> XBAR and NOC <-> PE_TCM links (remote traffic to the HBM,
  /// other PEs' TCMs), 1 ns, 256 GB/s each way.
  bool fabric_links = true;
  /// > 0: the HBM is hbm_ctrl_channels_v1 with this many channels and
  /// granule (same total bandwidth and latency as the default).
  uint32_t hbm_channels = 0;
  uint64_t hbm_granule = 256;
  /// Set: each PE has a pe_mmu (pass-through, or `mmu` if given) with this
  /// translation time, linked into the fabric (ADR-0015): pe_dma <-> pe_mmu
  /// 1 ns pure wires, pe_mmu -> xbar and pe_mmu -> noc 1 ns 256 GB/s.
  std::optional<uint64_t> mmu_cycles{};
  node_factory mmu{};
};
void make_cube(test_machine& sim, const cube_options& o);

/// Runs `sim` with `threads` CAF worker threads.
run_result run(test_machine& sim, size_t threads = 1);


// -- stage builders (plan fields the units read) --------------------------

constexpr uint64_t kib32 = 32 * 1024;
/// An address 8 KiB into the HBM of sipS.cubeC.
uint64_t hbm_of(uint32_t sip, uint32_t cube);

/// "<cube>.pe<p>.<unit>".
std::string unit(uint32_t pe, const std::string& name, const std::string& cube = "sip0.cube0");
stage dma_stage(stage_type t, uint64_t address, uint64_t bytes);

/// Joins the NOCs of cubes `a` and `b` ("sip0.cube0") by a link pair.
void join_nocs(test_machine& sim, const std::string& a, const std::string& b, SimTime latency,
               Bandwidth bw);
stage tcm_stage(stage_type t, uint64_t bytes);
stage gemm_stage(uint32_t tm, uint32_t tk, uint32_t tn);
stage math_stage(std::optional<math_op> op, uint64_t elements);
tile_plan tile(uint32_t id, std::vector<stage> stages);

/// The source tree (KB_SOURCE_DIR, which CTest sets, or the one built from).
std::string source_dir();

} // namespace kb::test
