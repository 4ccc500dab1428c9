#pragma once
// M_CPU: the cube's management CPU (DESIGN §2, §4). It receives the host's
// kernel launch (`host_latency_ns` after the run starts: the host's link),
// fans it out to the PE_CPUs of its cube that have a program, over its link
// to the NOC (one 64 B descriptor per PE, in PE order), and collects their
// completions the same way back; the last one reaches the host
// `host_latency_ns` later. A kernel's latency runs from the host's launch
// (t = 0) to that receipt (figure `done_ps`).

#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/pipeline_stats.hpp"

#include <optional>
#include <span>
#include <vector>

namespace kb {

class m_cpu final : public node {
public:
  struct config {
    SimTime host_latency;
    std::vector<uint32_t> pes; ///< indices of the cube's PEs with a program
    /// A host program's run (docs/adr/0043): per launch number, the
    /// cube's PEs it runs on (empty: a launch not on this cube). Empty in
    /// a one-kernel run.
    std::vector<std::vector<uint32_t>> launch_pes;
    bool program = false; ///< launches come from the host node
  };
  static const impl_decl<config>& decl();
  /// Launches to its cube's PE_CPUs, over its cube's NOC.
  static std::span<const port_doc> ports() {
    static constexpr port_doc p[] = {{"noc", "noc"}};
    return p;
  }
  static config read_config(const param_reader& p, const machine_context& ctx);

  m_cpu(caf::actor_config& cfg, node_init init, config c);

protected:
  void on_start() override;
  void on_message(sim_event& ev) override;
  void on_finish() override;
  std::string pending_work() const override;

private:
  void fan_out(); // the launch to every PE with a program
  /// A program's launch `l` from the host: to its PEs of this cube.
  void fan_out_launch(uint64_t l);
  /// A PE's completion of program launch `l`.
  void launch_done(uint32_t pe, uint64_t l);

  config cfg_;
  std::vector<char> done_; ///< per entry of cfg_.pes
  size_t completed_ = 0;
  SimTime last_done_;
  // -- a program's launches ------------------------------------------------------
  std::optional<uint32_t> host_;        ///< link to the host node
  std::vector<uint32_t> launch_left_;   ///< per launch: its PEs here still running
  std::vector<uint8_t> launch_arrived_; ///< per launch: it came from the host
  size_t launches_ = 0;                 ///< PE launches fanned out
  SimTime first_launch_ = SimTime::infinity();
};

} // namespace kb
