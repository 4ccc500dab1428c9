#include "actors/detail/inert_node.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb::detail {

inert_node::inert_node(caf::actor_config& cfg, node_init init, std::string why)
  : node(cfg, std::move(init)), why_(std::move(why)) {}

void inert_node::on_message(sim_event& ev) {
  const auto back = find_link_to(ev.src);
  const std::string sender =
    back ? link_name(*back) : fmt::format("node #{}", ev.src);
  throw std::runtime_error(
    fmt::format("{} received a message (kind {}) from {}, but it {}",
                node_name(), ev.kind, sender, why_));
}

} // namespace kb::detail
