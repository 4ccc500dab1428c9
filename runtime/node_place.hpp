#pragma once
// Where a node sits in the machine's hierarchy (system > SIPs > cubes >
// PEs), worked out once by the topology loader from the level that holds
// the node, and stored with it (node_spec::place). Code that needs a node's
// SIP, cube or PE number reads it here, never from the node's dotted name;
// names stay for messages and reports (docs/adr/0035-typed-unit-roles.md).

#include <cstdint>
#include <optional>

namespace kb {

struct node_place {
  /// Set for a node inside a SIP (`sip1.noc`, and everything below).
  std::optional<uint32_t> sip;
  /// Set for a node inside a cube (`sip1.cube0.hbm`, and everything below).
  std::optional<uint32_t> cube;
  /// Set for a unit of a PE (`sip1.cube0.pe3.pe_dma`).
  std::optional<uint32_t> pe;

  /// Whether the node belongs to a cube (a cube node or a PE's unit).
  bool in_cube() const { return sip && cube; }

  friend bool operator==(const node_place&, const node_place&) = default;
};

} // namespace kb
