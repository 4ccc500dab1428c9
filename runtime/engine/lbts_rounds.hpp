#pragma once
// Shard 0's bookkeeping for the lower bound on time stamps (LBTS) when every
// shard is stuck (ADR-0001): Mattern's two-wave counting. A round collects a
// snapshot from every shard. Two consecutive rounds in which every shard is
// stuck, the counts of event batches sent and received balance, and no
// shard's snapshot changed, prove that no event is in transit and that none
// was handled in between: the LBTS is then the smallest local minimum, and
// every shard may raise its incoming promises to it. LBTS = infinity means
// the whole machine is quiet.

#include "runtime/sim_time.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace kb {

/// One shard's state when probed.
struct hub_snapshot {
  uint32_t shard = 0;
  uint64_t round = 0;
  bool stuck = false;        ///< no window running and none can start
  SimTime local_min;         ///< earliest pending event of the shard
  uint64_t sent = 0;         ///< event-carrying batches sent to other shards
  uint64_t recv = 0;         ///< event-carrying batches received
  uint64_t windows = 0;      ///< windows run so far
};

class lbts_rounds {
public:
  explicit lbts_rounds(uint32_t shards) : shards_(shards), cur_(shards), prev_(shards) {}

  bool running() const { return running_; }
  /// Starts a new round; returns its number.
  uint64_t start();

  enum class action { pending, jump, again, wait };
  struct verdict {
    action what = action::pending;
    SimTime lbts;
  };
  /// Adds a reply of the current round (stale rounds are ignored). When the
  /// round is complete: jump (to `lbts`), run another round at once (again),
  /// or wait for the next stuck notice.
  verdict add(const hub_snapshot& s);

private:
  static bool same(const hub_snapshot& a, const hub_snapshot& b);
  uint32_t shards_;
  uint64_t round_ = 0;
  bool running_ = false;
  std::vector<std::optional<hub_snapshot>> cur_, prev_;
};

} // namespace kb
