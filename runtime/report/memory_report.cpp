#include "runtime/report/memory_report.hpp"

#include <fmt/format.h>

#include <map>
#include <ostream>
#include <string_view>
#include <unordered_map>

namespace kb {

namespace {

std::string in_units(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= 1024 * 1024)
    return fmt::format("{:.1f} MiB", b / (1024.0 * 1024.0));
  if (bytes >= 1024)
    return fmt::format("{:.1f} KiB", b / 1024.0);
  return fmt::format("{} B", bytes);
}

kind_memory total_of(const std::vector<kind_memory>& kinds) {
  kind_memory all{"all kinds", 0, 0};
  for (const auto& k : kinds) {
    all.nodes += k.nodes;
    all.bytes += k.bytes;
  }
  return all;
}

} // namespace

std::vector<kind_memory> memory_by_kind(const topology_spec& topology, const run_result& result) {
  std::unordered_map<std::string_view, std::string_view> kind_of;
  kind_of.reserve(topology.nodes.size());
  for (const auto& n : topology.nodes)
    kind_of.emplace(n.id, n.kind);
  std::map<std::string_view, kind_memory> by_kind;
  for (const auto& s : result.nodes) {
    const auto it = kind_of.find(s.name);
    const std::string_view kind = it == kind_of.end() ? std::string_view("other") : it->second;
    kind_memory& k = by_kind[kind];
    k.kind = kind;
    ++k.nodes;
    k.bytes += s.stats.build_bytes;
  }
  std::vector<kind_memory> out;
  out.reserve(by_kind.size());
  for (auto& [name, k] : by_kind)
    out.push_back(std::move(k));
  return out;
}

void write_memory_json(json_writer& j, const std::vector<kind_memory>& kinds) {
  j.begin_object().key("kinds").begin_array();
  for (const auto& k : kinds)
    j.begin_object()
      .field("kind", k.kind)
      .field("nodes", k.nodes)
      .field("bytes", k.bytes)
      .field("bytes_per_node", k.nodes ? k.bytes / k.nodes : 0)
      .end_object();
  const kind_memory all = total_of(kinds);
  j.end_array().field("nodes", all.nodes).field("bytes", all.bytes).end_object();
}

void print_memory(std::ostream& out, const std::vector<kind_memory>& kinds) {
  out << "\nmemory (heap each kind's nodes held once built; --memory builds them one at a time)\n";
  out << fmt::format("  {:<20} {:>9} {:>12} {:>12}\n", "kind", "nodes", "in all", "a node");
  auto line = [&](const kind_memory& k) {
    out << fmt::format("  {:<20} {:>9} {:>12} {:>12}\n", k.kind, k.nodes, in_units(k.bytes),
                       in_units(k.nodes ? k.bytes / k.nodes : 0));
  };
  for (const auto& k : kinds)
    line(k);
  line(total_of(kinds));
}

} // namespace kb
