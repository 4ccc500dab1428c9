#include "runtime/engine/live_system.hpp"

#include <system_error>
#include <thread>

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
  std::vector<std::thread> helpers;
  for (size_t g = 1; g < groups; ++g)
    if (!drop[g].empty()) {
      try {
        helpers.emplace_back([&drop, g] { drop[g].clear(); });
      } catch (const std::system_error&) { // no thread to be had: here then
        drop[g].clear();
      }
    }
  drop[0].clear();
  for (auto& t : helpers)
    t.join();
  sys.reset();
}

} // namespace kb
