#include "runtime/schedule/constraint_groups.hpp"

#include <map>

namespace kb::sched {

namespace {

class disjoint_sets {
public:
  uint32_t id(int64_t gid) {
    auto [it, fresh] = ids_.try_emplace(gid, static_cast<uint32_t>(parent_.size()));
    if (fresh)
      parent_.push_back(it->second);
    return it->second;
  }
  uint32_t find(uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void unite(uint32_t a, uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent_[std::max(a, b)] = std::min(a, b); // deterministic root
  }

private:
  std::map<int64_t, uint32_t> ids_;
  std::vector<uint32_t> parent_;
};

} // namespace

group_map same_depth_groups(const problem& p) {
  disjoint_sets sets;
  for (const auto& op : p.ops)
    if (op.gid && op.leader_gid)
      sets.unite(sets.id(*op.gid), sets.id(*op.leader_gid));
  group_map out;
  out.group_of.assign(p.ops.size(), -1);
  std::map<uint32_t, int32_t> index; // root -> group index
  for (uint32_t v = 0; v < p.ops.size(); ++v) {
    const auto& op = p.ops[v];
    if (!op.gid && !op.leader_gid)
      continue;
    const uint32_t root = sets.find(sets.id(op.gid ? *op.gid : *op.leader_gid));
    auto [it, fresh] = index.try_emplace(root, static_cast<int32_t>(out.groups.size()));
    if (fresh)
      out.groups.emplace_back();
    out.group_of[v] = it->second;
    out.groups[static_cast<std::size_t>(it->second)].push_back(v);
  }
  return out;
}

} // namespace kb::sched
