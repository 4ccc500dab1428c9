#pragma once
// The PE-internal wires used when `cube.pe_template.links` is not given
// (seed ADR-0021 D7; DESIGN §4).

#include <span>
#include <string_view>

namespace kb {

/// One directed wire between two components of a PE.
struct pe_wire {
  std::string_view from;
  std::string_view to;
  /// Added only when both ends exist (the PE_DMA ↔ PE_MMU pair); any other
  /// default wire with a missing end is a config error.
  bool optional = false;
};

/// Token paths, TCM requests/replies, tile-done notices (unit → scheduler),
/// the command path (cpu ↔ scheduler) and the optional DMA ↔ MMU pair.
std::span<const pe_wire> default_pe_wires();

} // namespace kb
