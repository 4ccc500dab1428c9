#include "actors/xbar.hpp"

#include "actors/detail/names.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

kind_doc xbar::doc() {
  return {"xbar",
          "PE_DMA <-> HBM crossbar: no contention, adds its latency to head "
          "and tail",
          {{"latency_ns", "ns", "2", "added to a message's head and tail"}}};
}

xbar::config xbar::read_config(const param_reader& p, const machine_context&) {
  config c;
  c.latency = p.required<SimTime>("latency_ns");
  return c;
}

xbar::xbar(caf::actor_config& cfg, node_init init, config c)
  : forwarder_node(cfg, std::move(init), c.latency) {}

uint32_t xbar::request_link(const global_address& a) {
  if (a.space != mem_space::hbm || !in_cube(a))
    throw std::runtime_error(fmt::format(
      "{}: a request for {} reached the XBAR, which reaches only the HBM of {}",
      node_name(), detail::describe_address(a.encode()), cube()));
  if (!hbm_link_)
    hbm_link_ = link_to(cube() + ".hbm");
  return *hbm_link_;
}

service_time_fn xbar::service_time(const config& c, const machine_context&) {
  return [c](const service_request& r) {
    return crossing{r.in.head + c.latency, r.in.tail + c.latency};
  };
}

} // namespace kb
