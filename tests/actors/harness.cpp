#include "tests/actors/harness.hpp"

#include "runtime/address.hpp"

#include "actors/hbm_ctrl.hpp"
#include "actors/hbm_ctrl_channels.hpp"
#include "actors/noc.hpp"
#include "actors/pe_dma.hpp"
#include "actors/pe_fetch_store.hpp"
#include "actors/pe_gemm.hpp"
#include "actors/pe_math.hpp"
#include "actors/pe_mmu.hpp"
#include "actors/pe_tcm.hpp"
#include "actors/sram.hpp"
#include "actors/xbar.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"
#include "runtime/pipeline/token.hpp"
#include "runtime/stat_decl.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace kb::test {

constexpr stat_decl st_done_ps = declare_stat("test", "done_ps", stat_unit::ps, "");
constexpr stat_decl st_done_tile = declare_stat("test", "done_tile", stat_unit::number, "");
constexpr stat_decl st_reply_head_ps = declare_stat("test", "reply_head_ps", stat_unit::ps, "");
constexpr stat_decl st_reply_tail_ps = declare_stat("test", "reply_tail_ps", stat_unit::ps, "");

// -- tile_feeder ---------------------------------------------------------------

tile_feeder::tile_feeder(caf::actor_config& cfg, node_init init,
                         std::vector<tile_plan> tiles, uint64_t command)
  : node(cfg, std::move(init)), tiles_(std::move(tiles)), command_(command) {}

void tile_feeder::on_start() {
  // It stands in for "<pe>.pe_scheduler": the stages' units are that PE's.
  const std::string pe = node_name().substr(0, node_name().rfind('.') + 1);
  for (const tile_plan& t : tiles_) {
    const stage& first = t.stages.at(0);
    outgoing m;
    m.kind = kind_of(pipe_kind::token);
    m.queue = static_cast<queue_id>(first.type);
    m.body = make_token(t, command_, id());
    send_on(link_to(pe + std::string(unit_name(first.unit))), std::move(m)); // held if out of credit
  }
}

void tile_feeder::on_message(sim_event& ev) {
  if (ev.kind != kind_of(pipe_kind::tile_done))
    throw std::runtime_error("tile_feeder: unexpected message kind " +
                             std::to_string(ev.kind));
  done_ps_.push_back(now().ps());
  done_tile_.push_back(ev.arg1);
}

void tile_feeder::on_finish() {
  for (auto t : done_ps_)
    add_figure(st_done_ps, t);
  for (auto t : done_tile_)
    add_figure(st_done_tile, t);
}

// -- mem_client ----------------------------------------------------------------

mem_client::mem_client(caf::actor_config& cfg, node_init init, uint64_t address,
                       uint32_t length, bool write)
  : node(cfg, std::move(init)), address_(address), length_(length), write_(write) {}

void mem_client::on_start() {
  outgoing m;
  m.kind = kind_of(write_ ? pipe_kind::mem_write : pipe_kind::mem_read);
  m.bytes = write_ ? length_ : 0;
  m.arg0 = address_;
  m.arg1 = mem_tag{id(), length_}.pack();
  send_on(0, std::move(m));
}

void mem_client::on_message(sim_event& ev) {
  head_.push_back(ev.t.ps());
  tail_.push_back(ev.tail.ps());
}

void mem_client::on_finish() {
  for (auto t : head_)
    add_figure(st_reply_head_ps, t);
  for (auto t : tail_)
    add_figure(st_reply_tail_ps, t);
}

// -- make_cube -----------------------------------------------------------------

// -- test_machine --------------------------------------------------------------

void test_machine::add_node(std::string name, node_factory f) {
  names_.push_back(name);
  sim_.add_node(std::move(name), std::move(f));
}

void test_machine::add_link(const std::string& src, const std::string& dst, SimTime latency,
                            std::optional<Bandwidth> bw, uint32_t queue_depth) {
  links_.emplace_back(src, dst, latency);
  sim_.add_link(src, dst, latency, bw, queue_depth);
}

run_result test_machine::run(size_t threads) {
  std::vector<std::string> sorted = names_; // node ids follow name order
  std::sort(sorted.begin(), sorted.end());
  auto id_of = [&](const std::string& n) {
    return static_cast<node_id>(std::lower_bound(sorted.begin(), sorted.end(), n) -
                                sorted.begin());
  };
  std::vector<fabric_node> nodes;
  for (const auto& n : sorted) {
    const std::string last = n.substr(n.rfind('.') + 1);
    fabric_kind k;
    if (last == "xbar" || last == "noc")
      k = {fabric_role::forwarder};
    else if (last == "hbm")
      k = {fabric_role::memory, mem_space::hbm};
    else if (last == "sram")
      k = {fabric_role::memory, mem_space::sram};
    else if (last == "pe_tcm")
      k = {fabric_role::memory, mem_space::tcm};
    else if (last == "pe_dma" || last == "client")
      k = {fabric_role::requester};
    else if (last == "pe_mmu")
      k = {fabric_role::translator};
    nodes.push_back({n, k});
  }
  std::vector<fabric_link> links;
  for (const auto& [a, b, lat] : links_)
    links.push_back({id_of(a), id_of(b), lat.ps()});
  *fabric_ = fabric_map::build(std::move(nodes), std::move(links));
  run_options opts;
  opts.threads = threads;
  return sim_.run(opts);
}

// -- make_cube -----------------------------------------------------------------

void make_cube(test_machine& sim, const cube_options& o) {
  auto omitted = [&](const std::string& name) {
    return std::find(o.omit.begin(), o.omit.end(), name) != o.omit.end();
  };
  const std::string& cube = o.cube;
  const auto fab = sim.fabric();
  sim.add_node(cube + ".xbar", make_node_factory<xbar>(xbar::config{.fabric = fab}));
  if (o.hbm_channels)
    sim.add_node(cube + ".hbm", make_node_factory<hbm_ctrl_channels>(hbm_ctrl_channels::config{
                                  .channels = o.hbm_channels, .granule = o.hbm_granule, .fabric = fab, .deploy = nullptr}));
  else
    sim.add_node(cube + ".hbm", make_node_factory<hbm_ctrl>(hbm_ctrl::config{.fabric = fab, .deploy = nullptr}));
  sim.add_link(cube + ".xbar", cube + ".hbm", ns(1), Bandwidth::gbps(512), 4);
  sim.add_link(cube + ".hbm", cube + ".xbar", ns(1), Bandwidth::gbps(512), 4);
  sim.add_node(cube + ".noc", make_node_factory<noc>(noc::config{.fabric = fab}));
  sim.add_node(cube + ".sram", make_node_factory<sram>(sram::config{.fabric = fab, .deploy = nullptr}));
  sim.add_link(cube + ".noc", cube + ".sram", ns(1), Bandwidth::gbps(256), 4);
  sim.add_link(cube + ".sram", cube + ".noc", ns(1), Bandwidth::gbps(256), 4);
  if (o.fabric_links) {
    sim.add_link(cube + ".noc", cube + ".xbar", ns(1), Bandwidth::gbps(256), 4);
    sim.add_link(cube + ".xbar", cube + ".noc", ns(1), Bandwidth::gbps(256), 4);
  }
  for (uint32_t p = 0; p < o.pes; ++p) {
    std::vector<tile_plan> tiles = p < o.tiles.size() ? o.tiles[p]
                                                      : std::vector<tile_plan>{};
    auto add = [&](const std::string& n, node_factory f) {
      if (!omitted(n))
        sim.add_node(unit(p, n, cube), std::move(f));
    };
    add("pe_scheduler", make_node_factory<tile_feeder>(tiles, o.command));
    add("pe_dma", make_node_factory<pe_dma>(pe_dma::config{.fabric = fab}));
    add("pe_fetch_store", make_node_factory<pe_fetch_store>(pe_fetch_store::config{}));
    const pe_gemm::config gemm_cfg; // defaults (R = C = 32, 1 GHz)
    add("pe_gemm", make_node_factory<pe_gemm>(gemm_cfg));
    add("pe_math", make_node_factory<pe_math>(pe_math::config{}));
    add("pe_tcm", make_node_factory<pe_tcm>(pe_tcm::config{.fabric = fab, .deploy = nullptr}));
    auto wire = [&](const std::string& a, const std::string& b) {
      if (!omitted(a) && !omitted(b))
        sim.add_link(unit(p, a, cube), unit(p, b, cube), ns(1), std::nullopt, 4);
    };
    for (const char* u : {"pe_dma", "pe_fetch_store", "pe_gemm", "pe_math"}) {
      wire("pe_scheduler", u);
      wire(u, "pe_scheduler");
    }
    wire("pe_dma", "pe_fetch_store");
    wire("pe_fetch_store", "pe_gemm");
    wire("pe_fetch_store", "pe_math");
    wire("pe_gemm", "pe_fetch_store");
    wire("pe_gemm", "pe_math");
    wire("pe_math", "pe_fetch_store");
    wire("pe_fetch_store", "pe_dma");
    wire("pe_fetch_store", "pe_tcm");
    wire("pe_tcm", "pe_fetch_store");
    if (!omitted("pe_dma")) {
      sim.add_link(unit(p, "pe_dma", cube), cube + ".xbar", ns(1), Bandwidth::gbps(256), 4);
      sim.add_link(cube + ".xbar", unit(p, "pe_dma", cube), ns(1), Bandwidth::gbps(256), 4);
      sim.add_link(unit(p, "pe_dma", cube), cube + ".noc", ns(1), Bandwidth::gbps(256), 4);
      sim.add_link(cube + ".noc", unit(p, "pe_dma", cube), ns(1), Bandwidth::gbps(256), 4);
    }
    if (o.mmu_cycles) {
      add("pe_mmu", o.mmu ? o.mmu
                          : make_node_factory<pe_mmu>(pe_mmu::config{
                              .translate = Cycles{*o.mmu_cycles}, .fabric = fab}));
      wire("pe_dma", "pe_mmu");
      wire("pe_mmu", "pe_dma");
      sim.add_link(unit(p, "pe_mmu", cube), cube + ".xbar", ns(1), Bandwidth::gbps(256), 4);
      sim.add_link(unit(p, "pe_mmu", cube), cube + ".noc", ns(1), Bandwidth::gbps(256), 4);
    }
    if (o.fabric_links && !omitted("pe_tcm")) {
      sim.add_link(cube + ".noc", unit(p, "pe_tcm", cube), ns(1), Bandwidth::gbps(256), 4);
      sim.add_link(unit(p, "pe_tcm", cube), cube + ".noc", ns(1), Bandwidth::gbps(256), 4);
    }
  }
}

run_result run(test_machine& sim, size_t threads) { return sim.run(threads); }



// -- stage builders ------------------------------------------------------------

void join_nocs(test_machine& sim, const std::string& a, const std::string& b, SimTime latency,
               Bandwidth bw) {
  sim.add_link(a + ".noc", b + ".noc", latency, bw, 4);
  sim.add_link(b + ".noc", a + ".noc", latency, bw, 4);
}

uint64_t hbm_of(uint32_t sip, uint32_t cube) {
  return global_address{mem_space::hbm, sip, cube, 0, 0x2000}.encode();
}

std::string unit(uint32_t pe, const std::string& name, const std::string& cube) {
  return cube + ".pe" + std::to_string(pe) + "." + name;
}

stage dma_stage(stage_type t, uint64_t address, uint64_t bytes) {
  stage s{t, unit_role::dma, {}};
  s.params.operand = t == stage_type::dma_read ? 'A' : 'C';
  s.params.address = address;
  s.params.rows = 1;
  s.params.row_bytes = bytes;
  s.params.row_stride_bytes = bytes;
  s.params.bytes = bytes;
  return s;
}

stage tcm_stage(stage_type t, uint64_t bytes) {
  stage s{t, unit_role::fetch_store, {}};
  s.params.bytes = bytes;
  return s;
}

stage gemm_stage(uint32_t tm, uint32_t tk, uint32_t tn) {
  stage s{stage_type::gemm, unit_role::gemm, {}};
  s.params.tm = tm;
  s.params.tk = tk;
  s.params.tn = tn;
  return s;
}

stage math_stage(std::optional<math_op> op, uint64_t elements) {
  stage s{stage_type::math, unit_role::math, {}};
  s.params.op = op;
  s.params.elements = elements;
  return s;
}

tile_plan tile(uint32_t id, std::vector<stage> stages) {
  tile_plan t;
  t.tile_id = id;
  t.stages = std::move(stages);
  return t;
}

std::string source_dir() {
  if (const char* env = std::getenv("KB_SOURCE_DIR"); env != nullptr && *env)
    return env;
  return KB_ACTOR_TEST_SOURCE_DIR;
}

} // namespace kb::test
