#pragma once
// How many SIPs, cubes per SIP and PEs per cube a machine may have: a global
// address numbers each in 8 bits (runtime/address.hpp,
// docs/adr/0003-address-encoding.md). The loader refuses a topology beyond
// it; `kernbench topology scale` refuses to write one. (The node count has
// its own limit, kb::max_topology_nodes in topology_spec.hpp.)

#include <cstdint>

namespace kb {

/// The most SIPs, cubes per SIP or PEs per cube (2^8).
inline constexpr uint32_t max_address_count = uint32_t{1} << 8;

} // namespace kb
