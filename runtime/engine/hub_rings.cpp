// The hub's peer rings (docs/adr/0041-peer-rings.md): peer batches to the
// shards of another process on this host go through shared memory; a hub
// blocked on its peers polls its rings for a while, then goes idle, and a
// writer rings an idle reader's doorbell (a CAF message).

#include "runtime/engine/hub.hpp"

#include <fmt/format.h>

#include <thread>

namespace kb {
namespace {

/// How long a blocked hub polls its rings before it sleeps. Longer than a
/// window of a typical split run and its peer's answer (tens of us), short
/// against a wake-up through the network layer when nothing comes.
constexpr std::chrono::microseconds poll_for{200};

/// Cores of this host (the processes that joined the rings share it).
uint32_t host_cores() {
  return std::max(1u, std::thread::hardware_concurrency());
}

} // namespace

void hub::open_rings() {
  const auto& slot = init_.rings;
  if (!slot || !slot->rings)
    return;
  ring_to_.assign(init_.shards, 0);
  for (uint32_t s = 0; s < init_.shards; ++s)
    if (s != init_.shard && slot->ring_to(s)) {
      ring_to_[s] = 1;
      ring_in_.emplace_back(s, frame_reader{});
    }
  if (ring_in_.empty())
    return;
  rings_ = slot->rings.get();
  // Polling pays only while every shard of the host has a core. With more
  // shards than cores, polling shards take the cores of working ones and
  // answer each other's questions at every small rise: the 1,024-PE machine
  // on 2 processes of 2 shards, 2 cores, ran its event loop in 0.37-0.83 s
  // polling (up to 450,000 promise-only batches) against 0.15-0.18 s
  // sleeping at once (about 1,100). The count is the same in every process
  // (the joined ranks).
  uint32_t host_shards = 0;
  for (uint32_t r = 0; r * slot->per_process < init_.shards; ++r)
    host_shards += rings_->joined(r) ? slot->per_process : 0;
  poll_for_ = host_shards <= host_cores() ? poll_for : std::chrono::microseconds{0};
}

void hub::ring_send(uint32_t to, event_batch& b) {
  const std::vector<char> bytes = encode_batch(b);
  count_batch_out(b.events.size(), bytes.size());
  cross_process().ring_batches.fetch_add(1, std::memory_order_relaxed);
  recycle(b.events);
  rings_->send_frame(init_.shard, to, bytes, [&] {
    // Full: the reader is behind. Take in what waits for this hub (so two
    // full rings never wait for each other), wake the reader if it sleeps.
    drain_rings();
    if (rings_->claim_doorbell(to)) {
      ++stats_.peer_null_msgs;
      send(peers_[to], doorbell_atom_v);
    }
    std::this_thread::yield();
  });
  if (rings_->claim_doorbell(to)) {
    ++stats_.peer_null_msgs; // a message to a peer without events
    send(peers_[to], doorbell_atom_v);
  }
}

void hub::drain_rings() {
  for (auto& [from, reader] : ring_in_)
    reader.pull(*rings_, from, init_.shard);
}

size_t hub::take_rings(bool* asked) {
  size_t taken = 0;
  for (auto& [from, reader] : ring_in_) {
    reader.pull(*rings_, from, init_.shard);
    while (reader.next(frame_)) {
      event_batch b = decode_batch(frame_);
      if (b.kind != batch_kind::peer || b.from != from) {
        fail(fmt::format("shard {}: a malformed batch in the ring from shard {}", init_.shard,
                         from));
        return taken;
      }
      if (asked && b.need)
        *asked = true;
      take_in(b);
      ++taken;
    }
  }
  return taken;
}

void hub::wait_on_rings() {
  if (polling_ || done_ || !running_)
    return;
  polling_ = true;
  rings_->set_idle(init_.shard, false);
  poll_since_ = std::chrono::steady_clock::now();
  send(this, ring_poll_atom_v); // not a synchronisation message: a look
}

void hub::on_ring_poll() {
  polling_ = false;
  if (!running_ || done_)
    return;
  bool asked = false;
  if (take_rings(&asked) > 0) {
    after_peers(asked);
    return;
  }
  if (continuing_ || outstanding_ > 0)
    return; // not blocked: its next step looks, and polls again if it blocks
  if (std::chrono::steady_clock::now() - poll_since_ < poll_for_) {
    std::this_thread::yield(); // a thread of another process may need the core
    polling_ = true;
    send(this, ring_poll_atom_v);
    return;
  }
  rings_idle();
}

void hub::on_doorbell() {
  if (polling_ || !running_)
    return; // the poll that is on its way looks
  bool asked = false;
  if (take_rings(&asked) > 0)
    after_peers(asked);
  if (polling_ || continuing_ || outstanding_ > 0)
    return; // busy or polling: it looks again before it waits
  rings_idle(); // the writer cleared the flag when it rang: set it again
}

void hub::rings_idle() {
  rings_->set_idle(init_.shard, true);
  bool asked = false;
  if (take_rings(&asked) == 0)
    return;
  // Came between the last poll and going idle: nobody rings for it.
  rings_->set_idle(init_.shard, false);
  after_peers(asked);
  if (!polling_ && (done_ || !running_))
    rings_->set_idle(init_.shard, true);
}

} // namespace kb
