// A kernel whose command never completes: when the machine goes quiet, the
// deadlock report names the kernel, what it waits for, and the commands not
// done. The default machine always completes a command, so PE_CPU runs here
// beside a stand-in PE_SCHEDULER that takes commands and never answers.

#include "actors/pe_cpu.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/pipeline/pe_program.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

/// Takes every message and does nothing with it.
class black_hole : public node {
public:
  using node::node;

protected:
  void on_message(sim_event&) override {}
};

gemm_plan_args small_gemm() {
  gemm_plan_args g;
  g.m = g.k = g.n = 32;
  g.tile_m = g.tile_k = g.tile_n = 32;
  g.in_dtype = dtype::f32;
  g.a_addr = 0;
  g.b_addr = 64 * 1024;
  g.c_addr = 128 * 1024;
  return g;
}

std::string run_stuck(std::function<void(tl::context&)> body) {
  auto prog = std::make_shared<pe_program>();
  prog->kernel = "stuck";
  prog->fn = std::move(body);
  pe_cpu::config c;
  c.program = prog;
  c.tcm_bytes = 2048 * 1024;
  c.tcm_reserved = 512 * 1024;
  simulation sim;
  sim.add_node("sip0.cube0.pe0.pe_cpu", make_node_factory<pe_cpu>(c), node_place{0, 0, 0});
  sim.add_node("sip0.cube0.pe0.pe_scheduler", make_node_factory<black_hole>());
  sim.add_link("sip0.cube0.pe0.pe_cpu", "sip0.cube0.pe0.pe_scheduler", ns(1));
  sim.add_link("sip0.cube0.pe0.pe_scheduler", "sip0.cube0.pe0.pe_cpu", ns(1));
  return sim.run(run_options{}).error;
}

TEST(KernelDeadlock, AKernelWaitingForACommandThatNeverEndsIsReported) {
  EXPECT_EQ(run_stuck([](tl::context& tl) { tl.wait(tl.gemm(small_gemm())); }),
            "deadlock: the machine went quiet with work pending:\n"
            "  sip0.cube0.pe0.pe_cpu: kernel stuck has not returned (it waits for command 1); "
            "command 1 not done");
}

TEST(KernelDeadlock, AKernelWaitingForAllItsCommandsSaysHowManyAreOutstanding) {
  EXPECT_EQ(run_stuck([](tl::context& tl) {
              tl.gemm(small_gemm());
              tl.gemm(small_gemm());
              tl.wait_all();
            }),
            "deadlock: the machine went quiet with work pending:\n"
            "  sip0.cube0.pe0.pe_cpu: kernel stuck has not returned (it waits for all its "
            "commands (2 outstanding)); command 1 not done; command 2 not done");
}

} // namespace
} // namespace kb
