#pragma once
// Small node kinds used by the engine tests.

#include "runtime/engine/node.hpp"

#include <string>
#include <vector>

namespace kb::test {

/// Sends `count` messages to its only link, into queue 0. It tries the next
/// send `interval` after the previous one left; a send without credit blocks
/// until the credit is back. Reports each message's attempt and leave time.
class producer : public node {
public:
  producer(caf::actor_config& cfg, node_init init, uint32_t count,
           SimTime interval);

protected:
  void on_start() override;
  void on_message(sim_event& ev) override;
  void on_unblocked(uint32_t link, queue_id q) override;
  void on_finish() override;

private:
  void attempt();
  uint32_t count_;
  SimTime interval_;
  uint32_t next_ = 0;
  std::vector<uint64_t> attempted_, left_;
};

/// Serves messages from queue 0 one at a time for `service` each: takes the
/// head when idle (returning the credit), then takes the next when done.
/// Reports each take time.
class consumer : public node {
public:
  consumer(caf::actor_config& cfg, node_init init, SimTime service);

protected:
  void on_message(sim_event& ev) override;
  void on_queue_arrival(queue_id q) override;
  void on_finish() override;

private:
  void try_take();
  SimTime service_;
  bool busy_ = false;
  std::vector<uint64_t> taken_;
};

/// A ring member: forwards every token to its only link at once; node
/// "r0" injects `tokens` tokens at time 0. A token dies after `hops` hops
/// (0: never). Reports the number of arrivals and the last arrival time.
class ring_member : public node {
public:
  ring_member(caf::actor_config& cfg, node_init init, uint32_t tokens,
              uint64_t hops);

protected:
  void on_start() override;
  void on_message(sim_event& ev) override;
  void on_finish() override;

private:
  uint32_t tokens_;
  uint64_t hops_;
  uint64_t arrivals_ = 0;
  uint64_t last_ = 0;
  uint64_t checksum_ = 0;
};


} // namespace kb::test
