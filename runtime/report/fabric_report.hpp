#pragma once
// The fabric part of `kernbench run`'s report (issue 11 item 7): every link
// between two cubes (UCIe inside a SIP, inter-SIP between SIPs) with its
// bytes and utilisation, busiest first; and per cube and per SIP the HBM and
// SRAM traffic and the bytes that left and entered over those links.

#include "runtime/engine/protocol.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace kb {

class json_writer;

/// One direction of a link between cubes.
struct fabric_link_use {
  std::string src, dst;   ///< node ids at both ends
  const char* kind;       ///< "ucie" or "inter-sip"
  uint64_t bytes = 0;
  uint64_t busy_ps = 0;
};

/// Traffic of a cube ("sip0.cube1") or a SIP ("sip0").
struct fabric_area_use {
  std::string name;
  uint64_t hbm_read_bytes = 0, hbm_write_bytes = 0, hbm_busy_ps = 0;
  uint64_t sram_bytes = 0;
  uint64_t bytes_out = 0, bytes_in = 0; ///< over links to other cubes
};

struct fabric_use {
  std::vector<fabric_link_use> links; ///< busiest first (ties by name)
  std::vector<fabric_area_use> cubes, sips; ///< in id order
};

/// Reads the link and memory figures of a finished run.
fabric_use fabric_use_of(const run_result& r);

/// The readable tables; `end_ps` is the simulated time (for utilisation).
void write_fabric_summary(std::ostream& out, const fabric_use& f, uint64_t end_ps);
/// The same as the value of the JSON key "fabric".
void write_fabric_json(json_writer& j, const fabric_use& f);

} // namespace kb
