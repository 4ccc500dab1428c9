#pragma once
// A node's side of the fabric routes (runtime/machine/fabric_map): which
// memory owns an address, and over which of the node's own links the next
// hop toward a destination lies. A node has a handful of next hops; their
// link indices are resolved once and cached.

#include "runtime/engine/event.hpp"
#include "runtime/machine/fabric_map.hpp"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb::detail {

class fabric_port {
public:
  fabric_port() = default;
  explicit fabric_port(std::shared_ptr<const fabric_map> f) : fabric_(std::move(f)) {}

  /// The memory node owning `address`; throws naming `who` and the address
  /// when the machine has no such memory.
  node_id memory_of(uint64_t address, const std::string& who) const;

  /// The link of node `self` toward `dst`: `find(next)` gives the link to a
  /// neighbour (node::find_link_to). Throws naming both ends if no route.
  template <class Find>
  uint32_t link_toward(node_id self, node_id dst, Find&& find) {
    return hop_toward(self, dst, find).link;
  }

  /// The next hop of node `self` toward `dst` and the link to it.
  struct hop {
    uint32_t link;
    node_id next;
  };
  template <class Find>
  hop hop_toward(node_id self, node_id dst, Find&& find) {
    const node_id next = next_hop(self, dst);
    for (const auto& [n, l] : links_)
      if (n == next)
        return {l, next};
    const std::optional<uint32_t> l = find(next);
    if (!l)
      no_link(self, next);
    links_.emplace_back(next, *l);
    return {*l, next};
  }

  const fabric_map& map() const;

private:
  node_id next_hop(node_id self, node_id dst) const;
  [[noreturn]] void no_link(node_id self, node_id next) const;

  std::shared_ptr<const fabric_map> fabric_;
  std::vector<std::pair<node_id, uint32_t>> links_; ///< next hop -> link
};

} // namespace kb::detail
