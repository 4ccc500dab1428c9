#include "actors/pe_mmu.hpp"

#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

const impl_decl<pe_mmu::config>& pe_mmu::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "pe_mmu",
    "address translation on the DMA path when linked into the fabric (identity here): takes its "
    "PE_DMA's requests, adds translate_cycles to head and tail, forwards by its own routes; "
    "replies bypass it. Unlinked, it takes no time",
    {param(&config::translate, "translate_cycles",
           "added to the head and tail of every request that passes")
       .init(Cycles{0})}}
      .reports(std::array{stat_requests});
  return d;
}

pe_mmu::config pe_mmu::read_config(const param_reader& p, const machine_context& ctx) {
  config c = decl().read(p);
  c.clock = ctx.clock;
  c.fabric = ctx.fabric;
  return c;
}

pe_mmu::pe_mmu(caf::actor_config& cfg, node_init init, config c)
  : forwarder_node(cfg, std::move(init), c.clock.to_time(c.translate), std::move(c.fabric),
                   false, detail::fabric_port::local_hops) {}

uint64_t pe_mmu::translate(uint64_t address) { return address; }

void pe_mmu::on_message(sim_event& ev) {
  switch (static_cast<pipe_kind>(ev.kind)) {
  case pipe_kind::mem_read:
  case pipe_kind::mem_write:
    ev.arg0 = translate(ev.arg0);
    forwarder_node::on_message(ev);
    return;
  default:
    throw std::runtime_error(fmt::format(
      "{}: unexpected message kind {} (an MMU takes its PE_DMA's memory requests only)",
      node_name(), ev.kind));
  }
}

void pe_mmu::on_finish() {
  if (requests() > 0)
    add_figure(stat_requests, requests());
}

service_time_fn pe_mmu::service_time(const config& c, const machine_context&) {
  return detail::forwarder_service_time(c.clock.to_time(c.translate));
}

} // namespace kb
