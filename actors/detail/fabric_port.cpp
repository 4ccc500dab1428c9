#include "actors/detail/fabric_port.hpp"

#include "actors/detail/names.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb::detail {

const fabric_map& fabric_port::map() const {
  if (!fabric_)
    throw std::logic_error("a fabric node was built without the machine's fabric routes "
                           "(build it with build_machine)");
  return *fabric_;
}

node_id fabric_port::memory_of(uint64_t address, const std::string& who) const {
  if (auto m = map().memory_of(address))
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
