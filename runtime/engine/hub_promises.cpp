// The hub's promises to the other shards: what its promise_book decides,
// sent as peer batches with the events bound for each shard.

#include "runtime/engine/hub.hpp"

namespace kb {

void hub::send_promises(SimTime local) {
  for (const promise_book::promise& p : book_.promises(local, end_, peer_out_)) {
    event_batch b;
    b.kind = batch_kind::peer;
    b.time = p.time;
    b.from = init_.shard;
    b.need = p.need;
    b.acked = p.acked;
    b.events.swap(peer_out_[p.to]);
    peer_out_[p.to] = spare();
    if (b.events.empty()) {
      ++stats_.peer_null_msgs;
    } else {
      ++stats_.peer_msgs;
      ++batches_sent_;
    }
    if (rings_ && ring_to_[p.to])
      ring_send(p.to, b);
    else
      send(peers_[p.to], std::move(b));
  }
}

} // namespace kb
