#pragma once
// A unit's stage tallies in its end-of-run summary: per command and stage
// type, the tiles it served and for how long, summed from its
// engine_start/engine_complete pairs by the stage_tally_recorder. What
// `--json` reports per command and stage (docs/results-schema.md).

#include "runtime/engine/summary_table.hpp"

#include <cstdint>
#include <vector>

namespace kb {

/// One command's use of one stage type on one unit (pe_dma, pe_gemm, ...).
struct stage_tally {
  uint64_t command = 0;
  uint8_t type = 0; ///< stage_type
  uint64_t count = 0;
  uint64_t busy_ps = 0;
  friend bool operator==(const stage_tally&, const stage_tally&) = default;
};

class stage_table final : public summary_table {
public:
  static constexpr uint16_t table_tag = 2; ///< sim.capnp's stageTableTag
  explicit stage_table(std::vector<stage_tally> rows)
    : summary_table(table_tag), rows(std::move(rows)) {}
  std::vector<char> encode() const override;
  /// The rows of encode()'s bytes (a clear error if they are not such).
  static stage_table decode(const std::vector<char>& bytes);
  /// Every tally of the tables of `tables`, in order.
  static std::vector<stage_tally> rows_of(const summary_tables& tables);

  std::vector<stage_tally> rows; ///< sorted by command, then stage type
};

} // namespace kb
