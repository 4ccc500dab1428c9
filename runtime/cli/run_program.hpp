#pragma once
// From `kernbench run`'s options to each PE's program: the commands on the
// operands the host placed, and the checks made before anything is built
// (tiles per command, memory estimate, the first tile's stage times).

#include "runtime/cli/run_cli.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/machine/fabric_map.hpp"
#include "runtime/host/placement.hpp"
#include "runtime/pipeline/command.hpp"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/plan/tile_source.hpp"

#include <cstdint>
#include <string>

namespace kb {

/// The PE's place: sip, cube and index within the cube, as the loader
/// placed the PE_CPU of PE `prefix` ("sip<S>.cube<C>.pe<P>") of `topo`.
struct pe_place {
  uint32_t sip = 0, cube = 0, pe = 0;
};
pe_place place_of(const topology_spec& topo, const std::string& prefix);

/// Bytes of each operand of one command (4 KiB pages; a MATH command has no
/// B), and of each epilogue op's operand tensor (f32).
operand_sizes sizes_of(const run_cli& c);

/// Rows of the operand tensor of GEMM epilogue op `op` (bias, add, mul,
/// dequant) for M = `m`: M for add and mul, 1 (a row of N) for the others.
uint32_t epilogue_operand_rows(math_op op, uint32_t m);

/// One command on the operands the host placed for its PE.
pe_command make_command(const run_cli& c, const operand_addresses& at);

/// Tiles of one command (0 when a shape or tile is zero: the plan generator
/// reports that with its own message).
uint64_t tiles_per_command(const run_cli& c);

/// Every command's plan is held while it runs, and with --json or --trace
/// every stage's records until the end: refuse up front what would not fit.
void check_run_memory(const run_cli& c, size_t pes);

/// Memory the data of a run takes (--verify and the like) on `pes` PEs with
/// operands of `sizes` and C of m x n: the deployed and the final image,
/// each C's expected values (f32), one PE's reference in f64.
uint64_t data_bytes_estimate(const run_cli& c, const operand_sizes& sizes, size_t pes);

/// Refuses a first tile one of whose stages alone exceeds kb::max_time_ps,
/// or sched::max_schedule_cycles cycles of the clock (the II predictor's
/// limit), on the machine whose routes are `fabric` (null: a machine whose
/// routes could not be built, which its build reports).
void check_stage_times(const run_cli& c, const topology_spec& topo, const std::string& pe,
                       const tile_source& tiles, std::shared_ptr<const fabric_map> fabric);

} // namespace kb
