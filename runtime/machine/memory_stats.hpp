#pragma once
// The statistics of the memory servers (HBM, SRAM, a PE_TCM's DMA port),
// declared once here because the report reads them (ADR-0038).

#include "runtime/stat_decl.hpp"

#include <array>

namespace kb {

/// What a memory server reports; a set per kind of port.
struct memory_stat_set {
  stat_decl busy_ps, read_bytes, write_bytes, requests, data_reads, data_writes, atomics;
  constexpr std::array<stat_decl, 7> all() const {
    return {busy_ps, read_bytes, write_bytes, requests, data_reads, data_writes, atomics};
  }
};

constexpr memory_stat_set declare_memory_stats(std::string_view scope, std::string_view busy,
                                               std::string_view read, std::string_view write,
                                               std::string_view requests,
                                               std::string_view data_reads,
                                               std::string_view data_writes,
                                               std::string_view atomics) {
  return {declare_stat(scope, busy, stat_unit::ps, "time the server was transferring"),
          declare_stat(scope, read, stat_unit::bytes, "bytes read"),
          declare_stat(scope, write, stat_unit::bytes, "bytes written"),
          declare_stat(scope, requests, stat_unit::count, "requests served"),
          declare_stat(scope, data_reads, stat_unit::count,
                       "reads that carried data (when the run has any)"),
          declare_stat(scope, data_writes, stat_unit::count,
                       "writes that carried data (when the run has any)"),
          declare_stat(scope, atomics, stat_unit::count, "atomic updates (when any)")};
}

/// HBM and SRAM.
inline constexpr memory_stat_set memory_stats = declare_memory_stats(
  "memory", "busy_ps", "read_bytes", "write_bytes", "requests", "data_reads", "data_writes",
  "atomics");

/// A PE_TCM's DMA port (other PEs' DMA reads and writes).
inline constexpr memory_stat_set tcm_dma_stats = declare_memory_stats(
  "tcm_dma", "dma_busy_ps", "dma_read_bytes", "dma_write_bytes", "dma_requests",
  "dma_data_reads", "dma_data_writes", "dma_atomics");

/// hbm_ctrl_channels_v1: per channel, qualified by its number.
inline constexpr stat_decl hbm_channel_busy_ps =
  declare_stat("hbm_ctrl", "ch{}.busy_ps", stat_unit::ps, "time the channel was transferring");

} // namespace kb
