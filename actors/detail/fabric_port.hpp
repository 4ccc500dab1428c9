#pragma once
// A node's side of the fabric routes (runtime/machine/fabric_map): which
// memory owns an address, and over which of the node's own links the next
// hop toward a destination lies. Both are answered once per destination and
// kept in small direct-mapped caches, so that a message routed again (the
// common case: a forwarder sees the same few dozen requesters and memories
// all run long) costs one probe, not two binary searches and a scan.

#include "runtime/engine/event.hpp"
#include "runtime/machine/fabric_map.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb::detail {

class fabric_port {
public:
  /// How many next hops a port keeps: a node that routes toward every PE of
  /// its cube and of the cubes that read from it (a cube's crossbar, NoC,
  /// HBM, SRAM), or one that mostly routes toward its own PE's few
  /// neighbours and memories (a PE's DMA, MMU, TCM).
  static constexpr uint32_t shared_hops = 256;
  static constexpr uint32_t local_hops = 8;

  fabric_port() = default;
  /// `hop_slots` (a power of two): how many destinations' next hops it
  /// keeps; a forwarder, which routes toward many, wants more than a PE.
  explicit fabric_port(std::shared_ptr<const fabric_map> f, uint32_t hop_slots = local_hops);

  /// The memory node owning `address`; throws naming `who` and the address
  /// when the machine has no such memory.
  node_id memory_of(uint64_t address, const std::string& who) const;
  /// The memory node owning `address`, if the machine has one.
  std::optional<node_id> find_memory(uint64_t address) const;

  /// The link of node `self` toward `dst`: `find(next)` gives the link to a
  /// neighbour (node::find_link_to). Throws naming both ends if no route.
  template <class Find>
  uint32_t link_toward(node_id self, node_id dst, Find&& find) {
    return hop_toward(self, dst, find).link;
  }

  /// The next hop of node `self` toward `dst` and the link to it (a port
  /// serves one node: `self` is always the same, the cache is by `dst`).
  struct hop {
    uint32_t link;
    node_id next;
  };
  template <class Find>
  hop hop_toward(node_id self, node_id dst, Find&& find) {
    cached_hop& c = hops_[slot(dst, hop_bits_)];
    if (c.dst == dst)
      return {c.link, c.next};
    const node_id next = next_hop(self, dst);
    const std::optional<uint32_t> l = find(next);
    if (!l)
      no_link(self, next);
    c = {dst, *l, next};
    return {*l, next};
  }

  const fabric_map& map() const;

private:
  struct cached_hop {
    node_id dst = no_node;
    uint32_t link = 0;
    node_id next = no_node;
  };
  /// A memory by the address bits above the offset (space, SIP, cube, PE):
  /// what the owner of an address depends on.
  struct cached_memory {
    uint64_t high = ~uint64_t{0};
    node_id memory = no_node;
  };
  static constexpr uint32_t memory_bits = 3;
  /// Fibonacci hashing: node ids of one kind come with a stride (a unit of
  /// every PE), which a plain mask would fold onto few slots.
  static uint32_t slot(uint64_t key, uint32_t bits) {
    return bits == 0 ? 0 : static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
  }
  node_id next_hop(node_id self, node_id dst) const;
  [[noreturn]] void no_link(node_id self, node_id next) const;

  std::shared_ptr<const fabric_map> fabric_;
  uint32_t hop_bits_ = 0;
  std::vector<cached_hop> hops_{1};
  mutable std::vector<cached_memory> memories_ =
    std::vector<cached_memory>(size_t{1} << memory_bits);
};

} // namespace kb::detail
