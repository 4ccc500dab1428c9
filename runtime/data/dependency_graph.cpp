#include "runtime/data/dependency_graph.hpp"

#include "runtime/data/detail/access_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace kb {

namespace {

constexpr uint32_t none = std::numeric_limits<uint32_t>::max();

std::string name_of(const std::vector<op_record>& ops, uint32_t i) { return describe(ops[i]); }

/// Throws if the graph (preds in CSR form) has a cycle, naming one.
void check_acyclic(const std::vector<op_record>& ops, const std::vector<uint64_t>& pred_at,
                   const std::vector<uint32_t>& pred, const std::vector<uint64_t>& succ_at,
                   const std::vector<uint32_t>& succ) {
  const size_t n = ops.size();
  std::vector<uint32_t> waiting(n);
  std::vector<uint32_t> ready;
  for (uint32_t i = 0; i < n; ++i) {
    waiting[i] = static_cast<uint32_t>(pred_at[i + 1] - pred_at[i]);
    if (waiting[i] == 0)
      ready.push_back(i);
  }
  size_t done = 0;
  while (!ready.empty()) {
    const uint32_t i = ready.back();
    ready.pop_back();
    ++done;
    for (uint64_t e = succ_at[i]; e < succ_at[i + 1]; ++e)
      if (--waiting[succ[e]] == 0)
        ready.push_back(succ[e]);
  }
  if (done == n)
    return;
  // Walk back through unfinished predecessors until an op repeats.
  uint32_t at = 0;
  while (waiting[at] == 0)
    ++at;
  std::vector<uint32_t> path;
  std::vector<int64_t> seen(n, -1);
  while (seen[at] < 0) {
    seen[at] = static_cast<int64_t>(path.size());
    path.push_back(at);
    for (uint64_t e = pred_at[at]; e < pred_at[at + 1]; ++e)
      if (waiting[pred[e]] != 0) {
        at = pred[e];
        break;
      }
  }
  std::string cycle;
  for (size_t k = static_cast<size_t>(seen[at]); k < path.size(); ++k)
    cycle += name_of(ops, path[k]) + " -> ";
  cycle += name_of(ops, at);
  throw std::runtime_error("dependency cycle in the op log: " + cycle + " (each waits for the next)");
}

} // namespace

dependency_graph dependency_graph::build(const std::vector<op_record>& ops,
                                         const dependency_options& options) {
  const size_t n = ops.size();
  if (n >= none)
    throw std::runtime_error(fmt::format("an op log window of {} ops is too large", n));
  dependency_graph g;
  g.order_.resize(n);
  std::iota(g.order_.begin(), g.order_.end(), 0u);
  std::stable_sort(g.order_.begin(), g.order_.end(), [&](uint32_t a, uint32_t b) {
    return ops[a].t_start_ps < ops[b].t_start_ps;
  });

  std::unordered_map<uint64_t, uint32_t> by_id;
  by_id.reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    if (auto [it, fresh] = by_id.emplace(ops[i].id, i); !fresh)
      throw std::runtime_error(fmt::format("two ops of the log have id {}: {} and {}", ops[i].id,
                                           name_of(ops, it->second), name_of(ops, i)));

  // Predecessors, op by op in log order, then placed in CSR by index.
  std::vector<uint64_t> count(n + 1, 0);
  std::vector<uint32_t> flat;
  std::vector<uint64_t> flat_at(n + 1, 0); // by position in order_
  detail::access_index map(options.max_row_checks);
  std::vector<uint32_t> deps;
  for (size_t pos = 0; pos < n; ++pos) {
    const uint32_t i = g.order_[pos];
    const op_record& op = ops[i];
    const std::vector<tensor_view> in = reads(op);
    deps.clear();
    for (const auto& v : in)
      map.conflicts(v, false, deps); // RAW
    map.conflicts(op.out, true, deps); // WAW, WAR
    for (uint64_t id : op.deps) {
      auto it = by_id.find(id);
      if (it == by_id.end())
        throw std::runtime_error(
          fmt::format("{} depends on op id {}, which is not in the log", describe(op), id));
      if (it->second == i)
        throw std::runtime_error(fmt::format("{} lists itself as a dependency", describe(op)));
      deps.push_back(it->second);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (const auto& v : in)
      map.add_read(v, i);
    map.set_write(op.out, i);
    flat.insert(flat.end(), deps.begin(), deps.end());
    flat_at[pos + 1] = flat.size();
    count[i + 1] = deps.size();
  }

  // CSR by op index.
  g.pred_at_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i)
    g.pred_at_[i + 1] = g.pred_at_[i] + count[i + 1];
  g.pred_.resize(flat.size());
  for (size_t pos = 0; pos < n; ++pos)
    std::copy(flat.begin() + static_cast<std::ptrdiff_t>(flat_at[pos]),
              flat.begin() + static_cast<std::ptrdiff_t>(flat_at[pos + 1]),
              g.pred_.begin() + static_cast<std::ptrdiff_t>(g.pred_at_[g.order_[pos]]));
  flat = {};
  std::vector<uint64_t> succ_count(n + 1, 0);
  for (uint32_t p : g.pred_)
    ++succ_count[p + 1];
  g.succ_at_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i)
    g.succ_at_[i + 1] = g.succ_at_[i] + succ_count[i + 1];
  g.succ_.resize(g.pred_.size());
  std::vector<uint64_t> fill(g.succ_at_.begin(), g.succ_at_.end() - 1);
  for (size_t pos = 0; pos < n; ++pos) { // in log order, so successors are in log order
    const uint32_t i = g.order_[pos];
    for (uint64_t e = g.pred_at_[i]; e < g.pred_at_[i + 1]; ++e)
      g.succ_[fill[g.pred_[e]]++] = i;
  }
  check_acyclic(ops, g.pred_at_, g.pred_, g.succ_at_, g.succ_);
  return g;
}

} // namespace kb
