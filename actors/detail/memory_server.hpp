#pragma once
// The FIFO memory server shared by hbm_ctrl and sram (DESIGN §4): one
// request at a time, in arrival-key order, at a bandwidth plus an access
// latency. `memory_server` is the arithmetic; `memory_server_node` is the
// node behaviour both kinds inherit (serve mem_read / mem_write, reply to
// the sender).

#include "actors/detail/names.hpp"
#include "runtime/address.hpp"
#include "runtime/engine/node.hpp"

#include <string>

namespace kb::detail {

/// Bandwidth and access latency of a memory server.
struct memory_timing {
  Bandwidth bandwidth;
  SimTime latency;
};

/// When a reply leaves the server: head and tail (equal for a write ack).
struct memory_reply {
  SimTime head;
  SimTime tail;
};

/// One request at a time: a request whose head arrives at h and tail at τ
/// starts at s = max(h, free); the server is busy until
/// free = max(s + xfer(length, bw), τ). A read's data leaves with head
/// s + lat and tail s + xfer + lat; a write's ack leaves at free + lat.
class memory_server {
public:
  explicit memory_server(memory_timing t) : timing_(t) {}

  /// Serves a read of `length` bytes whose request head arrives at `head`.
  memory_reply read(SimTime head, uint64_t length);
  /// Serves a write of `length` bytes whose head arrives at `head` and tail
  /// at `tail` (it may start before its tail arrives).
  memory_reply write(SimTime head, SimTime tail, uint64_t length);

  /// Time the server is busy until.
  SimTime free_at() const { return free_; }
  uint64_t busy_ps() const { return busy_ps_; }
  uint64_t read_bytes() const { return read_bytes_; }
  uint64_t write_bytes() const { return write_bytes_; }
  uint64_t requests() const { return requests_; }

private:
  /// Starts a request; returns s and advances `free_`.
  SimTime start(SimTime head, SimTime tail, SimTime x);

  memory_timing timing_;
  SimTime free_;
  uint64_t busy_ps_ = 0;
  uint64_t read_bytes_ = 0;
  uint64_t write_bytes_ = 0;
  uint64_t requests_ = 0;
};

/// A node that serves mem_read / mem_write for addresses of `space` in its
/// own cube and replies (mem_data / mem_ack) over the link back to the
/// sender. Figures: busy_ps, read_bytes, write_bytes, requests.
class memory_server_node : public node {
public:
  memory_server_node(caf::actor_config& cfg, node_init init,
                     memory_timing timing, mem_space space);

protected:
  void on_message(sim_event& ev) override;
  void on_finish() override;

private:
  void check_address(uint64_t address) const;

  memory_server server_;
  mem_space space_;
  std::string cube_;
  cube_id cube_id_;
};

} // namespace kb::detail
