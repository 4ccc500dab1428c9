#include "runtime/data/dependency_graph.hpp"

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

/// One access recorded in a segment: the op and the view it reads or writes.
struct access {
  uint32_t op;
  tensor_view view;
};

/// The address space in segments cut at the span ends of the views seen.
/// Per segment: writers that may still be the last writer of some of its
/// bytes, and readers that may have read some of its bytes since. An entry
/// leaves a segment only when a later write covers all its bytes there, so
/// for every byte the last writer and the readers since are in the lists; a
/// new op is checked against each entry exactly (views_overlap), so strided
/// views whose rows interleave do not conflict.
class access_map {
public:
  explicit access_map(uint32_t max_row_checks) : max_row_checks_(max_row_checks) {}

  /// Adds to `out` the ops of entries that share a byte with `v`: writers,
  /// and readers too if `with_readers`.
  void conflicts(const tensor_view& v, bool with_readers, std::vector<uint32_t>& out) const {
    const byte_range r = byte_span(v);
    for (auto it = first_overlap(r.first); it != segs_.end() && it->first < r.last; ++it) {
      for (const auto& w : it->second.writers)
        if (views_overlap(w.view, v, max_row_checks_))
          out.push_back(w.op);
      if (with_readers)
        for (const auto& rd : it->second.readers)
          if (views_overlap(rd.view, v, max_row_checks_))
            out.push_back(rd.op);
    }
  }

  void add_read(const tensor_view& v, uint32_t op) {
    for_each_segment(byte_span(v), [&](segment& s) {
      if (s.readers.empty() || s.readers.back().op != op || !(s.readers.back().view == v))
        s.readers.push_back({op, v});
    });
  }

  void set_write(const tensor_view& v, uint32_t op) {
    const byte_range r = byte_span(v);
    if (v.contiguous()) { // covers every byte of the segments in its span
      split(r.first);
      split(r.last);
      auto it = segs_.lower_bound(r.first);
      while (it != segs_.end() && it->first < r.last)
        it = segs_.erase(it);
      segs_.emplace_hint(it, r.first, segment{r.last, {{op, v}}, {}});
      return;
    }
    // A strided write surely covers only entries of the very same view.
    for_each_segment(r, [&](segment& s) {
      std::erase_if(s.writers, [&](const access& a) { return a.view == v; });
      std::erase_if(s.readers, [&](const access& a) { return a.view == v; });
      s.writers.push_back({op, v});
    });
  }

private:
  struct segment {
    uint64_t end;
    std::vector<access> writers;
    std::vector<access> readers;
  };
  using map = std::map<uint64_t, segment>;

  map::const_iterator first_overlap(uint64_t at) const {
    auto it = segs_.upper_bound(at);
    if (it != segs_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.end > at)
        return prev;
    }
    return it;
  }

  /// Makes `at` a segment boundary if a segment spans it.
  void split(uint64_t at) {
    auto it = segs_.upper_bound(at);
    if (it == segs_.begin())
      return;
    --it;
    if (it->first < at && at < it->second.end) {
      segment tail{it->second.end, it->second.writers, it->second.readers};
      it->second.end = at;
      segs_.emplace_hint(std::next(it), at, std::move(tail));
    }
  }

  /// Calls f on every segment of [r.first, r.last), creating segments for
  /// bytes never touched.
  template <class F>
  void for_each_segment(byte_range r, F&& f) {
    if (r.empty())
      return;
    split(r.first);
    split(r.last);
    uint64_t at = r.first;
    auto it = segs_.lower_bound(r.first);
    while (at < r.last) {
      if (it == segs_.end() || it->first > at) { // a gap: bytes never touched
        const uint64_t end = it == segs_.end() ? r.last : std::min(r.last, it->first);
        it = segs_.emplace_hint(it, at, segment{end, {}, {}});
      }
      f(it->second);
      at = it->second.end;
      ++it;
    }
  }

  uint32_t max_row_checks_;
  map segs_;
};

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
  access_map map(options.max_row_checks);
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
