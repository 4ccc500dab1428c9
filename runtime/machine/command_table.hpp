#pragma once
// One PE command as its PE_CPU and its PE_SCHEDULER saw it: the typed
// per-command statistics of a run (docs/adr/0024-one-report-for-every-run.md),
// and the table of them a node hands back in its end-of-run summary.
// PE_CPU fills the kernel's side (what was called, when it was issued and
// done, what it waited on), PE_SCHEDULER the feeder's (when it started and
// what held it, its II prediction); the report joins the two by `id`. A
// node hands its rows back in its node_summary, once, at the end of the
// run (a command_table): nothing here is on a per-event path.

#include "runtime/engine/summary_table.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// What a kernel's call became (the `call` of a command_stat).
enum class command_call : uint8_t {
  gemm,    ///< a composite GEMM (the built-in driver's, tl.gemm)
  math,    ///< a composite MATH
  load,    ///< tl.load: a DMA read into TCM
  store,   ///< tl.store: a DMA write out of TCM
  dot,     ///< tl.dot: one GEMM stage on TCM tensors
  compute, ///< an element-wise, reduce or cast op on TCM tensors
};
std::string_view to_string(command_call c);

/// Why PE_SCHEDULER did not start a command the moment it arrived.
enum class held_why : uint8_t {
  none,     ///< it started on arrival
  depends,  ///< a data dependency: `held_by` completed last
  engine,   ///< an earlier command (`held_by`) was feeding its engine's queue or blocked on it
};
std::string_view to_string(held_why w);

struct command_stat {
  uint64_t id = 0;
  // -- PE_CPU --------------------------------------------------------------
  uint64_t issue_ps = 0;
  uint64_t done_ps = 0;
  uint64_t tiles = 0;
  bool done = false;
  uint8_t call = 0;     ///< command_call
  uint8_t unit = 0xff;  ///< stage_type of a one-stage command; 0xff: composite
  uint64_t flops = 0;   ///< FLOPs (integer ops for integer types)
  uint64_t bytes = 0;   ///< bytes a load or store moves
  /// The command whose command-done notice resumed the kernel before it
  /// issued this one (0: issued before the kernel first waited).
  uint64_t after = 0;
  std::string what;     ///< "load 64x64 f16 (8192 B)", "gemm 512x512x512 f16 tiles ..."
  /// Its done notice resumed the suspended kernel, which had been
  /// suspended since `blocked_from_ps` (on whatever it waited for): the
  /// report splits [blocked_from_ps, done_ps] by what held this command
  /// (kernel_split.hpp).
  bool resumed_kernel = false;
  uint64_t blocked_from_ps = 0;
  // -- PE_SCHEDULER --------------------------------------------------------
  uint64_t arrive_ps = 0;  ///< the command reached PE_SCHEDULER
  uint64_t start_ps = 0;   ///< its first tile was released
  uint8_t held = 0;        ///< held_why
  uint64_t held_by = 0;    ///< the command that held it (see held_why)
  uint64_t body_tiles = 0;
  uint64_t predicted_ii_ps = 0;    ///< 0: not modelled
  uint64_t predicted_mii_ps = 0;   ///< valid with has_mii
  uint64_t steady_interval_ps = 0; ///< valid with has_steady (three bodies or more)
  bool has_mii = false;
  bool has_steady = false;
};

/// A node's command rows in its summary (PE_CPU: the kernel's side,
/// PE_SCHEDULER: the feeder's).
class command_table final : public summary_table {
public:
  static constexpr uint16_t table_tag = 1; ///< sim.capnp's commandTableTag
  explicit command_table(std::vector<command_stat> rows)
    : summary_table(table_tag), rows(std::move(rows)) {}
  std::vector<char> encode() const override;
  /// The rows of encode()'s bytes (a clear error if they are not such).
  static command_table decode(const std::vector<char>& bytes);
  /// Every command row of the tables of `tables`, in order.
  static std::vector<command_stat> rows_of(const summary_tables& tables);

  std::vector<command_stat> rows;
};

} // namespace kb
