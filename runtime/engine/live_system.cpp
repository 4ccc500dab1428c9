#include "runtime/engine/live_system.hpp"

#include <caf/send.hpp>

#include <system_error>
#include <thread>
#include <utility>

namespace kb {

void live_system::release() {
  const size_t groups = std::max<size_t>(1, nodes.size());
  std::vector<std::vector<caf::actor>> drop(groups);
  for (auto& [s, h] : hubs) // a hub first: it holds its nodes too
    drop[(s - first_local) % groups].push_back(std::move(h));
  hubs.clear();
  for (size_t g = 0; g < nodes.size(); ++g) {
    drop[g].insert(drop[g].end(), std::make_move_iterator(nodes[g].begin()),
                   std::make_move_iterator(nodes[g].end()));
    nodes[g].clear();
  }
  // A group's hubs come first in it: a hub that goes before its nodes has
  // no down message of theirs to handle.
  const bool exits = std::exchange(exit_on_release, false);
  auto end = [&drop, exits](size_t g) {
    if (exits)
      for (const auto& a : drop[g])
        caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    drop[g].clear();
  };
  std::vector<std::thread> helpers;
  for (size_t g = 1; g < groups; ++g)
    if (!drop[g].empty()) {
      try {
        helpers.emplace_back(end, g);
      } catch (const std::system_error&) { // no thread to be had: here then
        end(g);
      }
    }
  end(0);
  for (auto& t : helpers)
    t.join();
  sys.reset();
}

} // namespace kb
