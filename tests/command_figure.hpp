#pragma once
// A node's figure by name, for tests; "cmd<N>.<field>" of a PE_CPU
// (issue_ps, done_ps, tiles, done) or a PE_SCHEDULER (body_tiles,
// predicted_ii_ps, predicted_mii_ps, steady_interval_ps) reads row N of its
// command table (commands are rows, not figures: issue 62).

#include "runtime/engine/protocol.hpp"
#include "runtime/machine/command_table.hpp"

#include <charconv>
#include <stdexcept>
#include <string>

namespace kb::test {

inline uint64_t figure_or_command(const run_result& r, const std::string& node,
                                  const std::string& name) {
  const auto dot = name.find('.');
  uint64_t id = 0;
  if (!name.starts_with("cmd") || dot == std::string::npos || !(node.ends_with(".pe_cpu") || node.ends_with(".pe_scheduler")) ||
      std::from_chars(name.data() + 3, name.data() + dot, id).ptr != name.data() + dot)
    return figure_of(r, node, name);
  const node_summary* n = find_node(r, node);
  if (!n)
    throw std::runtime_error("no node " + node);
  const std::string field = name.substr(dot + 1);
  for (const command_stat& c : command_table::rows_of(n->tables))
    if (c.id == id) {
      if (field == "issue_ps")
        return c.issue_ps;
      if (field == "done_ps")
        return c.done_ps;
      if (field == "tiles")
        return c.tiles;
      if (field == "done")
        return c.done ? 1 : 0;
      if (field == "body_tiles")
        return c.body_tiles;
      if (field == "predicted_ii_ps")
        return c.predicted_ii_ps;
      if (field == "predicted_mii_ps" && c.has_mii)
        return c.predicted_mii_ps;
      if (field == "steady_interval_ps" && c.has_steady)
        return c.steady_interval_ps;
      throw std::runtime_error(node + " has no command field " + field);
    }
  throw std::runtime_error("no command " + std::to_string(id) + " of " + node);
}

} // namespace kb::test
