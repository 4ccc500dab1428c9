#pragma once
// Same-depth groups: union-find over gid values, `gid` joined with
// `leader_gid`. Ops of one group must share a depth (t div II).

#include "runtime/schedule/problem.hpp"

#include <cstdint>
#include <vector>

namespace kb::sched {

struct group_map {
  /// Group index of each op, −1 when the op belongs to none.
  std::vector<int32_t> group_of;
  /// Members of each group in program order.
  std::vector<std::vector<uint32_t>> groups;
};

/// An op's group is the root of its gid when it has one, else of its
/// leader_gid; an op with both joins the two.
group_map same_depth_groups(const problem& p);

} // namespace kb::sched
