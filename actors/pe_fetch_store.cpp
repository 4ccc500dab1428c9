#include "actors/pe_fetch_store.hpp"

#include "runtime/machine/pipeline_stats.hpp"


#include <fmt/format.h>

#include <stdexcept>

namespace kb {

const impl_decl<pe_fetch_store::config>& pe_fetch_store::decl() {
  static const impl_decl<config> d = impl_decl<config>{"pe_fetch_store",
                                   "TCM <-> register file: a fetch lane and a store lane, each "
                                   "stage a request to PE_TCM that ends with its reply"}
      .reports(lane_stats::all);
  return d;
}

pe_fetch_store::config pe_fetch_store::read_config(const param_reader&,
                                                   const machine_context&) {
  return {};
}

pe_fetch_store::pe_fetch_store(caf::actor_config& cfg, node_init init, config)
  : unit_node(cfg, std::move(init),
              {stage_type::fetch, stage_type::store}) {}

void pe_fetch_store::begin_stage(lane_id lane, wire::Stage::Reader s) {
  if (!tcm_link_)
    tcm_link_ = port_link(tcm_port, ports()[tcm_port].to);
  outgoing m;
  m.kind = kind_of(pipe_kind::tcm_request);
  m.arg0 = s.getBytes();
  m.arg1 = lane;
  send_on(*tcm_link_, std::move(m));
}

void pe_fetch_store::on_message(sim_event& ev) {
  if (ev.kind != kind_of(pipe_kind::tcm_reply))
    throw std::runtime_error(fmt::format(
      "{}: unexpected message kind {} (expected tcm_reply)", node_name(),
      ev.kind));
  if (ev.arg1 >= lane_count())
    throw std::runtime_error(fmt::format(
      "{}: tcm_reply for unknown lane {}", node_name(), ev.arg1));
  end_stage(static_cast<lane_id>(ev.arg1));
}

} // namespace kb
