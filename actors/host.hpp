#pragma once
// HOST: the host of a program run (kernels/program.hpp; docs/adr/0043).
// It issues each launch of the program, in launch order, as soon as every
// launch it waits for has completed here: one launch descriptor to the
// M_CPU of each cube the launch's PEs are in, over its link to that M_CPU
// (`link_latency_ns`); the M_CPUs fan it out to their PE_CPUs and send one
// completion back each when all of theirs have returned. A launch is
// complete when the last of its cubes' completions arrives.
//
// The program runner adds the node (`host`, outside every SIP) and its
// links when the topology declares none; a topology may declare it at the
// system level to set its parameters.

#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/pipeline_stats.hpp"
#include "runtime/pipeline/host_plan.hpp"

#include <memory>
#include <span>
#include <vector>

namespace kb {

class host final : public node {
public:
  struct config {
    SimTime link_latency; ///< of each link between the host and an M_CPU
    std::shared_ptr<const host_plan> plan; ///< null: no program, the host idles
  };
  static const impl_decl<config>& decl();
  /// Its links go to the M_CPUs a program's launches reach (no fixed port).
  static std::span<const port_doc> ports() { return {}; }
  static config read_config(const param_reader& p, const machine_context& ctx);

  host(caf::actor_config& cfg, node_init init, config c);

protected:
  void on_start() override;
  void on_message(sim_event& ev) override;
  void on_finish() override;
  std::string pending_work() const override;

private:
  /// Issues every launch not yet issued whose launches are all complete;
  /// `by`: the launch whose completion made them ready (UINT32_MAX: none).
  void issue_ready(uint32_t by);

  config cfg_;
  struct state {
    bool issued = false;
    bool done = false;
    uint32_t waiting = 0;     ///< M_CPU completions still to come
    uint32_t decided_by = 0;  ///< 1 + the launch that let it go (0: the start)
    uint64_t issue_ps = 0;
    uint64_t done_ps = 0;
    uint16_t track = 0; ///< its trace track: one no launch in flight holds
    std::vector<uint32_t> links; ///< to its M_CPUs
  };
  std::vector<state> launches_;
  std::vector<uint8_t> tracks_; ///< trace tracks held by a launch in flight
  size_t next_ = 0; ///< launches before it are all issued
};

} // namespace kb
