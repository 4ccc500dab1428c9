#pragma once
// Mailbox delivery's lookahead windows without actors
// (docs/adr/0001-synchronisation.md): per node of a shard, the time of its
// next own event as it last reported it and the events held for it, and
// which nodes a window wakes. The hub sends the advance and report
// messages; what it knows between them is here
// (tests/runtime/window_book_test.cpp).
//
// Only nodes with something pending are looked at: in a big, sparse
// machine most nodes are idle in most windows.

#include "runtime/engine/event.hpp"
#include "runtime/sim_time.hpp"

#include <span>
#include <vector>

namespace kb {

class window_book {
public:
  /// Room for node ids below `nodes`.
  explicit window_book(size_t nodes);

  /// Node `id` reported its next own event at `next` (infinity: none).
  void reported(node_id id, SimTime next);
  /// An event for a node of this shard, held until a window wakes it.
  void hold(sim_event e);
  /// The earliest thing pending: a node's next own event or a held one.
  SimTime local_min() const;
  /// The nodes a window ending at `w` wakes (something pending before
  /// `w`), in the order they became live; nodes with nothing pending at
  /// all leave the live list. Valid until the next call.
  std::span<const node_id> wake(SimTime w);
  /// The events held for `id` (woken), leaving `spare` in their place:
  /// emptied storage, so that batches circulate without reallocating.
  std::vector<sim_event> take(node_id id, std::vector<sim_event> spare);

private:
  void make_live(node_id id);

  std::vector<node_id> live_;      ///< nodes with something pending
  std::vector<char> in_live_;      ///< per node id
  std::vector<SimTime> next_;      ///< per node id: its next own event
  std::vector<SimTime> held_min_;  ///< per node id: its earliest held event
  std::vector<std::vector<sim_event>> held_;
  std::vector<node_id> woken_;     ///< the result of wake()
};

} // namespace kb
