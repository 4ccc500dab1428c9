#pragma once
// Plans are data (seed ADR-0021, seed ADR-0042 D6): a pipeline plan is a list of tile
// plans, each an ordered list of stages that a tile token walks through by
// self-routing. A plan holds no actor or engine state.

#include "kernels/dtype.hpp"
#include "kernels/math_op.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

// -- stage kinds --------------------------------------------------------------

/// The kind of work a stage performs; decides which unit serves it.
enum class stage_type : uint8_t {
  dma_read,  ///< HBM -> TCM over the fabric (PE_DMA read channel)
  fetch,     ///< TCM -> register file (fetch lane of PE_FETCH_STORE)
  gemm,      ///< MAC array on register data (PE_GEMM)
  math,      ///< element-wise op on register data (PE_MATH)
  store,     ///< register file -> TCM (store lane of PE_FETCH_STORE)
  dma_write, ///< TCM -> HBM over the fabric (PE_DMA write channel)
};

/// Lower-case name of `type` ("dma_read", "fetch", ...).
std::string_view to_string(stage_type type);

/// The unit of a PE that runs a stage. Every stage of a plan runs on a unit
/// of the PE whose scheduler feeds it, so a stage names its unit by role and
/// the unit's node is `<pe>.<unit_name(role)>` (docs/adr/0035).
enum class unit_role : uint8_t { dma, fetch_store, gemm, math };
inline constexpr size_t unit_role_count = 4;

/// The unit's component name within its PE: pe_dma, pe_fetch_store,
/// pe_gemm, pe_math.
std::string_view unit_name(unit_role role);

/// The unit that serves `type`: DMA reads and writes on PE_DMA, fetch and
/// store on PE_FETCH_STORE, gemm on PE_GEMM, math on PE_MATH.
unit_role unit_of(stage_type type);

/// The name of the unit lane that serves `type`, the one name of that lane
/// in the summary, the JSON (`pe_dma/read`, figures `read.busy_ps`), traces
/// and `trace stats`: read, fetch, gemm, math, store, write.
std::string_view lane_name(stage_type type);

// -- stage parameters ---------------------------------------------------------

/// Everything a unit needs to time a stage and a later data replay needs to
/// redo it. Fields a stage kind does not use stay at their defaults.
///
/// Tile-level fields (`tm`, `tk`, `tn`, `in_dtype`, `out_dtype`, `last_k`) are
/// set on every stage of a tile. Per kind:
/// - dma_read / dma_write: `operand`, `address`, `row_stride_bytes`, `rows`,
///   `row_bytes`, `bytes` (= rows * row_bytes).
/// - fetch: `bytes` (A + B tile bytes for GEMM, the input tile for MATH).
/// - gemm: the tile-level fields; `pinned_a` / `pinned_b` for pinned operands.
/// - math: `elements`, `op`, and `scope`, `operand_block` and `value` for a
///   GEMM epilogue op.
/// - store: `operand` = 'C', `bytes` (output tile in `out_dtype`).
struct stage_params {
  /// Matrix the data belongs to: 'A', 'B', 'C', or 0 for none/both.
  char operand = 0;
  /// Global address of the tile's first element (DMA stages).
  uint64_t address = 0;
  /// Distance in bytes between consecutive rows in memory (DMA stages).
  uint64_t row_stride_bytes = 0;
  /// Number of rows moved (DMA stages).
  uint32_t rows = 0;
  /// Contiguous bytes per row (DMA stages).
  uint64_t row_bytes = 0;
  /// Total bytes moved (DMA, FETCH, STORE).
  uint64_t bytes = 0;
  /// Tile extents: rows of A/C, the reduction depth, columns of B/C.
  uint32_t tm = 0;
  uint32_t tk = 0;
  uint32_t tn = 0;
  /// Elements a MATH stage processes.
  uint64_t elements = 0;
  /// Operation of a MATH stage.
  std::optional<math_op> op;
  /// Element type read from memory.
  dtype in_dtype = dtype::f32;
  /// Element type written to memory.
  dtype out_dtype = dtype::f32;
  /// Scope of a GEMM epilogue MATH stage; empty for a plain MATH stage.
  std::optional<epilogue_scope> scope;
  /// True on the last K tile of an output tile (always true in a MATH plan).
  bool last_k = false;
  /// Data (seed ADR-0020), DMA stages of a kernel's loads and stores: the TCM end
  /// of the transfer (0: a slot of the scheduler's, as in composite plans),
  /// and whether a read brings its bytes back to the kernel.
  uint64_t local_address = 0;
  bool want_data = false;
  /// Data (seed ADR-0020), gemm stages: the tile's block of a pinned operand,
  /// which no DMA_READ brings to a slot (the replay reads it in place).
  std::optional<tensor_view> pinned_a;
  std::optional<tensor_view> pinned_b;
  /// Data, GEMM epilogue MATH stages: the tile's block of the op's operand
  /// (1 x tn for a row, tm x tn for a matrix) and its scalar (epilogue_op).
  std::optional<tensor_view> operand_block;
  double value = 1.0;

  friend bool operator==(const stage_params&, const stage_params&) = default;
};

// -- plan structure -----------------------------------------------------------

/// One step of a tile's walk through the PE units.
struct stage {
  stage_type type = stage_type::dma_read;
  /// The serving unit of the feeding scheduler's PE.
  unit_role unit = unit_role::dma;
  stage_params params;

  friend bool operator==(const stage&, const stage&) = default;
};

/// The stage sequence of one tile.
struct tile_plan {
  /// Position in feed order, 0-based and dense.
  uint32_t tile_id = 0;
  /// Tile indices (not element offsets) along M, N and K; k = 0 in a MATH plan.
  uint32_t m = 0;
  uint32_t n = 0;
  uint32_t k = 0;
  std::vector<stage> stages;

  friend bool operator==(const tile_plan&, const tile_plan&) = default;
};

/// All tiles of one composite command, in feed order.
struct pipeline_plan {
  std::vector<tile_plan> tiles;

  friend bool operator==(const pipeline_plan&, const pipeline_plan&) = default;
};

// -- helpers ------------------------------------------------------------------

/// Total number of stages over all tiles of `plan`.
uint64_t stage_count(const pipeline_plan& plan);

/// Number of stages of kind `type` over all tiles of `plan`.
uint64_t stage_count(const pipeline_plan& plan, stage_type type);

/// Bytes of the scheduler's reserved TCM (seed ADR-0014 D5.1) that `tile`
/// holds while in flight: its DMA stages to and from a scheduler slot
/// (local_address 0), i.e. the operand tiles it reads and the output tile
/// it writes back (docs/adr/0031-tcm-capacity.md). Kernel loads and stores
/// use the kernel's own TCM and hold none.
uint64_t scheduler_tcm_bytes(const tile_plan& tile);

/// One-line human-readable rendering of `s` for logs and test failures.
std::string to_string(const stage& s);

} // namespace kb
