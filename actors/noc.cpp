#include "actors/noc.hpp"

#include "actors/detail/names.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

kind_doc noc::doc() {
  return {"noc",
          "cube network: forwards memory requests for the cube's SRAM and "
          "their replies, adding its latency to head and tail (UCIe routing "
          "and kernel launches not modelled yet)",
          {{"forward_latency_ns", "ns", "4",
            "added to a forwarded message's head and tail"}}};
}

noc::config noc::read_config(const param_reader& p, const machine_context&) {
  config c;
  c.forward_latency = p.required<SimTime>("forward_latency_ns");
  return c;
}

noc::noc(caf::actor_config& cfg, node_init init, config c)
  : forwarder_node(cfg, std::move(init), c.forward_latency) {}

uint32_t noc::request_link(const global_address& a) {
  if (a.space != mem_space::sram || !in_cube(a))
    throw std::runtime_error(fmt::format(
      "{}: routing a request for {} over the NOC is not modelled yet (only "
      "the SRAM of {})",
      node_name(), detail::describe_address(a.encode()), cube()));
  if (!sram_link_)
    sram_link_ = link_to(cube() + ".sram");
  return *sram_link_;
}

} // namespace kb
