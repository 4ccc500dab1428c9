#pragma once
// The FIFO memory server shared by hbm_ctrl and sram (DESIGN §4): one
// request at a time, in arrival-key order, at a bandwidth plus an access
// latency. `memory_server` is the arithmetic; `memory_server_node` is the
// node behaviour both kinds inherit (serve mem_read / mem_write, reply to
// the sender).

#include "actors/detail/fabric_port.hpp"
#include "actors/detail/names.hpp"
#include "actors/detail/pending_writes.hpp"
#include "runtime/address.hpp"
#include "runtime/data/memory_image.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/machine/service_time.hpp"
#include "runtime/machine/memory_stats.hpp"

#include <optional>
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

/// An atomic's read-modify-write (docs/adr/0027): when the server started
/// it (the read of the old bytes) and when its ack leaves.
struct memory_rmw {
  SimTime start;
  SimTime ack;
};

/// The declared service of an idle memory server (ADR-0007): a fresh
/// server's read or write, as below (HBM_CTRL, SRAM, PE_TCM's DMA port).
service_time_fn memory_service_time(memory_timing t);

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
  /// Serves an atomic of `length` bytes (docs/adr/0027): the read service of
  /// the bytes, then at once the write service of the same bytes, the server
  /// held throughout: s = max(h, free), free = max(s + 2 xfer, tau), the ack
  /// leaves at free + lat (the same latency as a write's ack: the operation
  /// sits in the memory's data path). Counts one request, `length` bytes
  /// read and `length` written.
  memory_rmw atomic(SimTime head, SimTime tail, uint64_t length);

  /// Time the server is busy until.
  SimTime free_at() const { return free_; }
  /// When the latest request started: it is served from then to free_at().
  SimTime last_start() const { return last_start_; }
  uint64_t busy_ps() const { return busy_ps_; }
  uint64_t read_bytes() const { return read_bytes_; }
  uint64_t write_bytes() const { return write_bytes_; }
  uint64_t requests() const { return requests_; }

private:
  /// Starts a request; returns s and advances `free_`.
  SimTime start(SimTime head, SimTime tail, SimTime x);

  memory_timing timing_;
  SimTime free_;
  SimTime last_start_;
  uint64_t busy_ps_ = 0;
  uint64_t read_bytes_ = 0;
  uint64_t write_bytes_ = 0;
  uint64_t requests_ = 0;
};

/// A node that serves mem_read / mem_write for the addresses it owns (by
/// the fabric's address map) and sends each reply (mem_data / mem_ack)
/// toward the requester named in its mem_tag by the fabric routes.
/// It holds the contents of those addresses (seed ADR-0020 D7): the host's
/// deployed bytes at the start; a request that carries a MemAccess body
/// (a kernel's load or store) reads or writes them, and a load's reply
/// carries the bytes. Bodiless traffic (composite commands) only takes time.
/// Atomics (docs/adr/0027) are applied here, in arrival order.
/// Figures: <prefix>busy_ps, read_bytes, write_bytes, requests, and
/// data_reads / data_writes when kernels touched the contents, atomics when
/// kernels issued some.
class memory_server_node : public node {
public:
  /// `deploy`: the host's initial image of the whole machine (may be null);
  /// the node keeps the pages it owns.
  memory_server_node(caf::actor_config& cfg, node_init init, memory_timing timing,
                     std::shared_ptr<const fabric_map> fabric,
                     std::shared_ptr<const memory_image> deploy,
                     const memory_stat_set& stats = memory_stats,
                     uint32_t hop_slots = fabric_port::shared_hops);

  /// The node's contents (tests).
  const memory_image& contents() const { return image_; }

protected:
  void on_message(sim_event& ev) override;
  void on_finish() override;

  /// Whether `ev` is a memory request (mem_read / mem_write).
  static bool is_request(const sim_event& ev);

  /// Serves a read of `length` bytes at `address` whose head arrived at
  /// `head`, or a write whose tail arrives at `tail`; by default the one
  /// FIFO server (a per-channel model overrides both).
  virtual memory_reply serve_read(SimTime head, uint64_t address, uint64_t length);
  virtual memory_reply serve_write(SimTime head, SimTime tail, uint64_t address,
                                   uint64_t length);
  /// Serves an atomic (memory_server::atomic); a per-channel model overrides it.
  virtual memory_rmw serve_atomic(SimTime head, SimTime tail, uint64_t address,
                                  uint64_t length);
  /// data_reads / data_writes and atomics, when there were any (on_finish
  /// adds them; a per-channel model that replaces on_finish calls it).
  void add_data_figures();
  /// Traces the span `s` has just been given (its latest request, `bytes`
  /// of the request being served) on lane `channel`.
  void trace_span(const memory_server& s, uint16_t channel, uint64_t bytes);

private:
  void check_address(uint64_t address);
  /// Serves an atomic (a mem_write whose MemAccess says `atomic`, docs/adr/0027)
  /// and sends its ack on `back` (memory_atomics.cpp).
  void serve_atomic_request(const sim_event& ev, uint32_t back);
  /// Serves the data of a kernel's load or store (a request with a body);
  /// sets the reply's body for a load.
  void serve_data(const sim_event& ev, bool is_read, outgoing& reply);
  /// A kernel load (`command` of kernel `who` from DMA `requester`) of
  /// bytes a compute result writes.
  /// "command 3 of kernel k on sip0.cube0.pe0": who wrote a pending block.
  std::string pending_writer(const pending_writes::writer& w) const;

  memory_server server_;
  /// The request being served, as its trace spans name it: what = its
  /// kind, item = its address, context = the requester.
  service_tag serving_;
  memory_image image_;
  pending_writes pending_; ///< bytes of compute results (no Phase 1 data)
  uint64_t data_reads_ = 0;
  uint64_t data_writes_ = 0;
  uint64_t atomics_ = 0;
  std::optional<SimTime> last_applied_; ///< when the latest atomic was applied
  fabric_port port_;
  const memory_stat_set& stats_; ///< what it reports (runtime/machine/memory_stats)
};

} // namespace kb::detail
