#pragma once
// HBM_CTRL, per-channel model (impl hbm_ctrl_channels_v1, DESIGN §4 Fabric):
// `channels` FIFO servers, each at bandwidth / channels (MB/s, rounded down)
// plus `latency_ns`. Addresses interleave over the channels in granules of
// `interleave_bytes`: the granule at offset o is on channel
// (o / interleave_bytes) mod channels. A request is split into its bytes on
// each channel; each part is served by its channel as a request of its own
// (a write part waits for the whole write's tail), and the reply carries the
// earliest part's head and the latest part's tail: a read is complete when
// its last part is. With one channel this is exactly hbm_ctrl_v1.
// Figures: busy_ps (mean over channels), read_bytes, write_bytes,
// requests, ch<i>.busy_ps per channel, and the data figures every memory
// adds (data_reads / data_writes, atomics). docs/adr/0034-per-channel-hbm.md.

#include "actors/detail/memory_server.hpp"
#include "actors/hbm_ctrl.hpp"

#include <vector>

namespace kb {

class hbm_ctrl_channels final : public detail::memory_server_node {
public:
  struct config {
    Bandwidth bandwidth = Bandwidth::gbps(512);
    SimTime latency = ns(100);
    uint32_t channels = 1;
    uint64_t granule = 256;
    std::shared_ptr<const fabric_map> fabric;
    std::shared_ptr<const memory_image> deploy; ///< the host's initial contents
  };
  static constexpr fabric_kind fabric{fabric_role::memory, mem_space::hbm};
  static const impl_decl<config>& decl();
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007, docs/adr/0034): an idle
  /// controller serving a request that starts on a granule boundary. Its
  /// channel 0 then holds the most bytes any channel can hold of a request
  /// of that length (q·granule + min(r, granule) for length = q·round + r),
  /// so this is the service of the busiest part: exact for such a request,
  /// never below an unaligned one's. A read's head leaves at head + latency,
  /// its tail at head + xfer(channel 0's bytes) + latency; a write's ack at
  /// max(head + xfer(channel 0's bytes), tail) + latency.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  hbm_ctrl_channels(caf::actor_config& cfg, node_init init, config c);

  /// Bytes of [offset, offset + length) on channel `ch`.
  static uint64_t bytes_on(uint64_t offset, uint64_t length, uint32_t ch, uint32_t channels,
                           uint64_t granule);

protected:
  detail::memory_reply serve_read(SimTime head, uint64_t address, uint64_t length) override;
  detail::memory_reply serve_write(SimTime head, SimTime tail, uint64_t address,
                                   uint64_t length) override;
  /// Each channel's part as an atomic of its own (read then write of its
  /// bytes); starts at the earliest part's start, acked with the latest part.
  detail::memory_rmw serve_atomic(SimTime head, SimTime tail, uint64_t address,
                                  uint64_t length) override;
  void on_finish() override;

private:
  config cfg_;
  std::vector<detail::memory_server> ch_;
  uint64_t read_bytes_ = 0, write_bytes_ = 0, requests_ = 0;
};

} // namespace kb
