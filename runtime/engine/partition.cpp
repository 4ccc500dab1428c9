#include "runtime/engine/partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <unordered_map>

namespace kb {

size_t shard_lanes(size_t threads, uint32_t ranks, bool one_host) {
  const size_t t = std::max<size_t>(1, threads);
  if (ranks > 1 && !one_host)
    return t;
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::min<size_t>(t, std::max<size_t>(1, cores / std::max(1u, ranks)));
}

uint32_t shards_to_run(uint32_t asked, size_t lanes) {
  return static_cast<uint32_t>(std::min<size_t>(asked, std::max<size_t>(1, lanes)));
}

std::string shards_note(uint32_t asked, size_t threads, uint32_t ranks, bool one_host) {
  const size_t lanes = shard_lanes(threads, ranks, one_host);
  const uint32_t run = shards_to_run(asked, lanes);
  if (run == asked)
    return {};
  return fmt::format("note: --shards {} on {} thread(s){}: each process runs {} shard(s) "
                     "(shards that share a thread or a core only add synchronisation; results "
                     "never depend on it)",
                     asked, threads,
                     lanes >= std::max<size_t>(1, threads) ? std::string{}
                     : ranks > 1 ? fmt::format(" and {} core(s) shared by {} processes",
                                               std::max(1u, std::thread::hardware_concurrency()),
                                               ranks)
                                 : fmt::format(" and {} core(s)", lanes),
                     run);
}

shard_plan plan_shards(const std::vector<std::string>& names, const std::vector<uint32_t>& proc,
                       uint32_t ranks, const std::function<std::string(uint32_t)>& group_key,
                       uint32_t shards, size_t threads, bool endless) {
  const size_t n = names.size();
  std::vector<size_t> per_proc(ranks, 0);
  for (auto p : proc)
    ++per_proc[p];
  // Group of each node: the id of its group's first node.
  std::vector<uint32_t> group(n);
  std::vector<size_t> group_size(n, 0);
  std::vector<size_t> groups_per_proc(ranks, 0);
  std::unordered_map<std::string, uint32_t> first;
  auto name_of = [&](uint32_t i) {
    return names[i].empty() ? fmt::format("#{}", i) : names[i];
  };
  for (uint32_t i = 0; i < n; ++i) {
    bool fresh = true;
    group[i] = i;
    if (std::string key = group_key ? group_key(i) : std::string(); !key.empty()) {
      const auto [it, first_of_group] = first.try_emplace(std::move(key), i);
      fresh = first_of_group;
      group[i] = it->second;
    }
    if (proc[group[i]] != proc[i])
      throw std::invalid_argument(fmt::format("nodes {} and {} share a group but not a process",
                                              name_of(group[i]), name_of(i)));
    groups_per_proc[proc[i]] += fresh ? 1 : 0;
    ++group_size[group[i]];
  }
  shard_plan plan;
  if (shards > 0)
    plan.per_process = shards;
  else if (!group_key && endless)
    plan.per_process = 1; // nothing says where to cut; quiescence costs LBTS rounds
  else
    plan.per_process = static_cast<uint32_t>(std::clamp<size_t>(
      threads, 1,
      std::max<size_t>(1, *std::min_element(groups_per_proc.begin(), groups_per_proc.end()))));
  const uint32_t per = plan.per_process;
  plan.owner.assign(n, 0);
  std::vector<size_t> seen(ranks, 0);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t p = proc[i];
    if (group[i] == i) { // a group's first node places the whole group
      const size_t sub = seen[p] * per / std::max<size_t>(1, per_proc[p]);
      plan.owner[i] = p * per + static_cast<uint32_t>(std::min<size_t>(sub, per - 1));
      seen[p] += group_size[i];
    } else {
      plan.owner[i] = plan.owner[group[i]];
    }
  }
  return plan;
}

} // namespace kb
