// PE_SCHEDULER's completion contract: exactly once per tile.

#include "actors/pe_cpu.hpp"
#include "actors/pe_scheduler.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/pipeline/pe_program.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

/// A broken unit: reports every tile it takes as done twice.
class double_completer : public node {
public:
  using node::node;

protected:
  void on_message(sim_event&) override {}
  void on_queue_arrival(queue_id q) override {
    sim_event ev = take(q);
    auto t = ev.body.root<wire::TileToken>();
    for (int i = 0; i < 2; ++i) {
      outgoing m;
      m.kind = kind_of(pipe_kind::tile_done);
      m.arg0 = t.getCommand();
      m.arg1 = t.getTile();
      send_on(find_link_to(t.getScheduler()).value(), std::move(m));
    }
  }
};

// PE_CPU issues at 0; the scheduler gets the command at 1 and feeds the
// token; the unit takes it at 2 and sends two tile-done notices, which
// arrive at 3: the first completes the command, the second is an error.
TEST(Scheduler, DuplicateTileCompletionIsAnErrorNamingTheTile) {
  const std::string pe = "sip0.cube0.pe0";
  auto prog = std::make_shared<pe_program>();
  stage s;
  s.type = stage_type::dma_read;
  s.unit = unit_role::dma;
  s.params.bytes = 64;
  prog->commands.push_back(simple_command{s});
  simulation sim;
  sim.add_node(pe + ".pe_cpu", make_node_factory<pe_cpu>(pe_cpu::config{prog, 0, 0, nullptr, nullptr}),
               node_place{0, 0, 0});
  sim.add_node(pe + ".pe_scheduler", make_node_factory<pe_scheduler>(pe_scheduler::config{}));
  sim.add_node(pe + ".pe_dma", make_node_factory<double_completer>());
  sim.add_link(pe + ".pe_cpu", pe + ".pe_scheduler", ns(1), std::nullopt, 4);
  sim.add_link(pe + ".pe_scheduler", pe + ".pe_cpu", ns(1), std::nullopt, 4);
  sim.add_link(pe + ".pe_scheduler", pe + ".pe_dma", ns(1), std::nullopt, 4);
  sim.add_link(pe + ".pe_dma", pe + ".pe_scheduler", ns(1), std::nullopt, 4);
  run_result r = sim.run({});
  EXPECT_EQ(r.error, "sip0.cube0.pe0.pe_scheduler at t=3000 ps: command 1: tile 0 "
                     "completed twice");
}

} // namespace
} // namespace kb
