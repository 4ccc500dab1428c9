#include "actors/detail/fabric_port.hpp"

#include "actors/detail/names.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>

namespace kb::detail {

fabric_port::fabric_port(std::shared_ptr<const fabric_map> f, uint32_t hop_slots)
  : fabric_(std::move(f)) {
  if (hop_slots == 0 || (hop_slots & (hop_slots - 1)) != 0)
    throw std::logic_error(fmt::format("fabric_port: {} hop slots is not a power of two", hop_slots));
  while ((uint32_t{1} << hop_bits_) < hop_slots)
    ++hop_bits_;
  hops_.assign(hop_slots, cached_hop{});
}

const fabric_map& fabric_port::map() const {
  if (!fabric_)
    throw std::logic_error("a fabric node was built without the machine's fabric routes "
                           "(build it with build_machine)");
  return *fabric_;
}

std::optional<node_id> fabric_port::find_memory(uint64_t address) const {
  const uint64_t high = address / (global_address::max_offset + 1);
  cached_memory& c = memories_[slot(high, memory_bits)];
  if (c.high == high)
    return c.memory;
  const std::optional<node_id> m = map().memory_of(address);
  if (m)
    c = {high, *m};
  return m;
}

node_id fabric_port::memory_of(uint64_t address, const std::string& who) const {
  if (auto m = find_memory(address))
    return *m;
  throw std::runtime_error(fmt::format("{}: the machine has no memory for address {}", who,
                                       describe_address(address)));
}

node_id fabric_port::next_hop(node_id self, node_id dst) const {
  if (auto n = map().next_hop(self, dst))
    return *n;
  throw std::runtime_error(no_route_message(map(), self, dst));
}

void fabric_port::no_link(node_id self, node_id next) const {
  throw std::logic_error(fmt::format("{}: the fabric routes to {}, but the node has no link to it",
                                     map().name(self), map().name(next)));
}

} // namespace kb::detail
