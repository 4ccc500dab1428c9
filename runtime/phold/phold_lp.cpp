#include "runtime/phold/phold_lp.hpp"

namespace kb::phold {

phold_lp::phold_lp(caf::actor_config& cfg, node_init init, params p,
                   uint32_t index)
  : node(cfg, std::move(init)), p_(p), index_(index), rng_(p.seed, index) {}

void phold_lp::on_start() {
  for (uint32_t j = 0; j < p_.events_per_lp; ++j)
    schedule(SimTime{exp_delay(rng_, p_.mean_ps)}, event_kind);
}

void phold_lp::on_message(sim_event&) {
  ++state_.committed;
  state_.last_ps = now().ps();
  const decision d = decide(rng_, index_, p_);
  if (d.dst == index_) {
    schedule(now() + ps(p_.lookahead_ps + d.exp_ps), event_kind);
    return;
  }
  // Links are added in destination order, skipping this LP itself; the link
  // latency is the lookahead, the exponential part delays the head.
  const uint32_t l = d.dst < index_ ? d.dst : d.dst - 1;
  outgoing m;
  m.kind = event_kind;
  m.head = now() + ps(d.exp_ps);
  send_on(l, std::move(m));
}

void phold_lp::on_finish() {
  add_figure(stat_committed, state_.committed);
  add_figure(stat_last_ps, state_.last_ps);
}

} // namespace kb::phold
