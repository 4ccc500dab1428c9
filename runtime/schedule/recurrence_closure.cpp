#include "runtime/schedule/recurrence_closure.hpp"

#include <algorithm>

namespace kb::sched {

namespace {

constexpr int64_t no_path = INT64_MIN / 4;

} // namespace

recurrence_closure::recurrence_closure(const problem& p, const dep_graph& g, uint32_t ii)
  : scc_(p.ops.size(), -1), local_(p.ops.size(), 0), ii_(ii) {
  for (const auto& members : g.recurrences()) {
    if (members.size() < 2)
      continue; // a self edge fixes no op against another (RecMII covers it)
    const auto id = static_cast<int32_t>(comps_.size());
    const std::size_t k = members.size();
    for (std::size_t i = 0; i < k; ++i) {
      scc_[members[i]] = id;
      local_[members[i]] = static_cast<uint32_t>(i);
    }
    std::vector<int64_t> d(k * k, no_path);
    for (std::size_t i = 0; i < k; ++i) {
      d[i * k + i] = 0;
      for (uint32_t e : g.succs(members[i])) {
        const auto& ed = g.edge(e);
        if (scc_[ed.to] != id)
          continue;
        int64_t& x = d[i * k + local_[ed.to]];
        x = std::max(x, ed.latency - static_cast<int64_t>(ed.distance) * ii);
      }
    }
    for (std::size_t m = 0; m < k; ++m) // Floyd–Warshall, longest paths
      for (std::size_t i = 0; i < k; ++i) {
        const int64_t im = d[i * k + m];
        if (im == no_path)
          continue;
        for (std::size_t j = 0; j < k; ++j)
          if (d[m * k + j] != no_path)
            d[i * k + j] = std::max(d[i * k + j], im + d[m * k + j]);
      }
    for (std::size_t i = 0; i < k; ++i)
      positive_cycle_ = positive_cycle_ || d[i * k + i] > 0;
    component c;
    c.members = members;
    c.d = std::move(d);
    c.k.assign(k * k, 0);
    c.slot.assign(k, 0);
    comps_.push_back(std::move(c));
  }
}

int64_t recurrence_closure::bound(const component& c, uint32_t a, uint32_t b) const {
  const std::size_t k = c.members.size();
  return ceil_div(c.d[a * k + b] - c.slot[b] + c.slot[a], ii_);
}

bool recurrence_closure::pair_fits(uint32_t u, uint32_t ru, uint32_t v, uint32_t rv) const {
  if (scc_[u] < 0 || scc_[u] != scc_[v])
    return true;
  const auto& c = comps_[static_cast<std::size_t>(scc_[u])];
  const std::size_t k = c.members.size();
  const int64_t lo = c.d[local_[u] * k + local_[v]];
  const int64_t hi = -c.d[local_[v] * k + local_[u]];
  // The smallest t_v − t_u ≥ lo in slot difference rv − ru.
  const int64_t x = lo + (((static_cast<int64_t>(rv) - ru - lo) % ii_) + ii_) % ii_;
  return x <= hi;
}

bool recurrence_closure::assign(uint32_t v, uint32_t slot) {
  if (scc_[v] < 0)
    return true;
  auto& c = comps_[static_cast<std::size_t>(scc_[v])];
  const std::size_t k = c.members.size();
  const uint32_t x = local_[v];
  c.slot[x] = slot;
  const std::size_t m = c.placed.size();
  to_.assign(m, no_path);   // longest path u ⇝ x over whole IIs
  from_.assign(m, no_path); // longest path x ⇝ w
  for (std::size_t i = 0; i < m; ++i) {
    const uint32_t u = c.placed[i];
    const int64_t ux = bound(c, u, x);
    const int64_t xu = bound(c, x, u);
    for (std::size_t j = 0; j < m; ++j) {
      const uint32_t w = c.placed[j];
      // u ⇝ w → x and x → u ⇝ w, with K(w, w) = 0.
      to_[j] = std::max(to_[j], c.k[w * k + u] + ux);
      from_[j] = std::max(from_[j], xu + c.k[u * k + w]);
    }
  }
  for (std::size_t i = 0; i < m; ++i)
    if (to_[i] + from_[i] > 0)
      return false; // a positive cycle through x
  marks_.push_back(undo_.size());
  for (std::size_t i = 0; i < m; ++i) {
    const uint32_t u = c.placed[i];
    for (std::size_t j = 0; j < m; ++j) {
      const uint32_t w = c.placed[j];
      const int64_t via = to_[i] + from_[j];
      int64_t& cell = c.k[u * k + w];
      if (via > cell) {
        undo_.push_back({static_cast<uint32_t>(u * k + w), cell});
        cell = via;
      }
    }
    c.k[u * k + x] = to_[i];
    c.k[x * k + u] = from_[i];
  }
  c.k[x * k + x] = 0;
  c.placed.push_back(x);
  return true;
}

void recurrence_closure::unassign(uint32_t v) {
  if (scc_[v] < 0)
    return;
  auto& c = comps_[static_cast<std::size_t>(scc_[v])];
  c.placed.pop_back(); // the entries of x are rewritten at its next assign
  const std::size_t mark = marks_.back();
  marks_.pop_back();
  while (undo_.size() > mark) {
    c.k[undo_.back().index] = undo_.back().value;
    undo_.pop_back();
  }
}

} // namespace kb::sched
