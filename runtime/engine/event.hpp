#pragma once
// The in-process simulation message: a timestamped envelope ordered by the
// total key (time, sender node id, sender sequence number).

#include "runtime/engine/message_body.hpp"
#include "runtime/sim_time.hpp"

#include <compare>
#include <cstdint>
#include <limits>

namespace kb {

/// Dense node index, assigned by the builder in lexicographic order of the
/// dotted node names, so it is the same in every process of a run.
using node_id = uint32_t;
constexpr node_id no_node = std::numeric_limits<node_id>::max();

/// Index of an input queue at the receiving node (for pipeline units: the
/// stage type the queue serves). `no_queue` marks a plain message.
using queue_id = uint16_t;
constexpr queue_id no_queue = std::numeric_limits<queue_id>::max();

/// Message kinds reserved by the engine; node kinds number theirs from
/// `first_user_kind` upwards.
enum class engine_kind : uint16_t {
  credit = 0, ///< a credit returning to the sender of a bounded queue
  timer = 1,  ///< a node's message to itself
};
constexpr uint16_t first_user_kind = 16;

/// The total order key of every event.
struct event_key {
  SimTime t;
  node_id src = no_node;
  uint64_t seq = 0;
  friend constexpr auto operator<=>(const event_key&, const event_key&) = default;
};

/// One simulation message or timer: `t` is the arrival time of the message's
/// head at `dst`, `tail` that of its last byte; (t, src, seq) is its key.
/// Flat and 72 bytes: events are moved a lot.
struct sim_event {
  SimTime t;
  uint64_t seq = 0;
  SimTime tail;
  uint64_t bytes = 0;   ///< payload bytes the link serialises
  uint64_t arg0 = 0;    ///< small scalar payload, meaning set by `kind`
  uint64_t arg1 = 0;
  message_body body;    ///< optional Cap'n Proto payload (tile token, ...)
  node_id src = no_node;
  node_id dst = no_node;
  uint32_t link = 0;    ///< sender's output link index (credit routing)
  queue_id queue = no_queue;
  uint16_t kind = 0;

  event_key key() const { return {t, src, seq}; }
  void set_key(SimTime time, node_id from, uint64_t sequence) {
    t = time;
    src = from;
    seq = sequence;
  }
};
static_assert(sizeof(sim_event) == 72);


} // namespace kb
