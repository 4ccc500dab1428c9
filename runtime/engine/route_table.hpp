#pragma once
// A node's output links as the hot path reads them: for link l, the
// destination node, an index into the node's few distinct latencies, and,
// for a link with bandwidth or credits, an index into its stateful links.
//
// A link added one at a time (a machine node's own links) has an entry of
// its own, so at() is an index. A link class (add_run) is stored as runs:
// consecutive pure-wire links with the same latency to consecutive node ids
// share one 16-byte entry. PHOLD's all-to-all LP has 1,023 links in two
// runs, so a send reads two cached entries instead of a random line of an
// 8 KB table (a cache miss per remote event, 9% of a 1,024-LP run before).

#include "runtime/engine/event.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace kb {

class route_table {
public:
  static constexpr uint16_t no_state = 0xffff;

  struct route {
    node_id dst;
    uint16_t latency; ///< index into the node's distinct latencies
    uint16_t state;   ///< index into its stateful links, or no_state
  };

  /// Appends the next link (links are numbered in the order added), as an
  /// entry of its own.
  void add(route r);
  /// Appends `count` pure-wire links of one latency to the consecutive nodes
  /// first_dst, first_dst + 1, ... (an any-to-any link class, without a
  /// link object per pair).
  void add_run(node_id first_dst, uint32_t count, uint16_t latency);
  uint32_t size() const { return count_; }
  /// Room for `runs` entries (a node built from its link list: one a link).
  void reserve(size_t runs) {
    if (runs > inline_runs)
      spill_.reserve(runs);
  }

  /// Link `l` (< size()).
  route at(uint32_t l) const {
    const run* runs = data();
    if (runs_ == count_) { // one run per link
      const run& x = runs[l];
      return {x.first_dst, x.latency, x.state};
    }
    const run& x = *(std::upper_bound(runs, runs + runs_, l,
                                      [](uint32_t v, const run& r) {
                                        return v < r.first_link;
                                      }) - 1);
    return {x.first_dst + (l - x.first_link), x.latency, x.state};
  }

  /// The first link to node `dst`, if any.
  std::optional<uint32_t> find(node_id dst) const;

private:
  struct run {
    uint32_t first_link;
    node_id first_dst;
    uint32_t count;
    uint16_t latency;
    uint16_t state;
  };
  /// A node with a few links keeps them inside itself: a send then reads
  /// no other memory than the node's own (a cache miss a send otherwise,
  /// 4% of a 1,024-PE run). More go to spill_, all of them.
  static constexpr uint32_t inline_runs = 4;

  const run* data() const { return runs_ <= inline_runs ? inline_ : spill_.data(); }
  run* data() { return runs_ <= inline_runs ? inline_ : spill_.data(); }
  void push(const run& r);

  uint32_t runs_ = 0;  ///< entries
  uint32_t count_ = 0; ///< links
  run inline_[inline_runs] = {};
  std::vector<run> spill_;
};

} // namespace kb
