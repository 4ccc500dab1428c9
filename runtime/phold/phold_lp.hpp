#pragma once
// One PHOLD logical process as a node actor.

#include "runtime/engine/node.hpp"
#include "runtime/phold/phold_model.hpp"

namespace kb::phold {

class phold_lp : public node {
public:
  phold_lp(caf::actor_config& cfg, node_init init, params p, uint32_t index);

  /// What an LP reports (ADR-0038).
  static constexpr stat_decl stat_committed =
    declare_stat("phold", "committed", stat_unit::count, "events the LP committed");
  static constexpr stat_decl stat_last_ps =
    declare_stat("phold", "last_ps", stat_unit::ps, "the time of its last event");

protected:
  void on_start() override;
  void on_message(sim_event& ev) override;
  void on_finish() override;

private:
  static constexpr uint16_t event_kind = first_user_kind;
  params p_;
  uint32_t index_;
  rng rng_;
  lp_state state_;
};

} // namespace kb::phold
