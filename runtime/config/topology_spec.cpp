#include "runtime/config/topology_spec.hpp"

#include <algorithm>

namespace kb {

const node_spec* topology_spec::find_node(std::string_view id) const {
  auto it = std::lower_bound(
      nodes.begin(), nodes.end(), id,
      [](const node_spec& n, std::string_view key) { return n.id < key; });
  return it != nodes.end() && it->id == id ? &*it : nullptr;
}

const link_spec* topology_spec::find_link(std::string_view src,
                                          std::string_view dst) const {
  auto it =
      std::lower_bound(links.begin(), links.end(), std::pair{src, dst},
                       [](const link_spec& l, const auto& key) {
                         return std::pair<std::string_view, std::string_view>{
                                    l.src, l.dst} < key;
                       });
  return it != links.end() && it->src == src && it->dst == dst ? &*it : nullptr;
}

} // namespace kb
