#pragma once
// The statistics of the PE pipeline and the kernels it runs (ADR-0038),
// declared once here because the report reads them: the unit lanes (every
// unit_node), the commands, the kernel and the feeder (PE_CPU,
// PE_SCHEDULER) and the launch (M_CPU). Each kind lists the ones it
// reports in its declaration (`impl_decl::stats`).

#include "runtime/stat_decl.hpp"

#include <array>

namespace kb {

/// Per unit lane, qualified by the lane's name ("read", "gemm", ...).
namespace lane_stats {
inline constexpr stat_decl busy_ps =
  declare_stat("lane", "{}.busy_ps", stat_unit::ps, "time the lane served stages");
inline constexpr stat_decl stall_ps = declare_stat(
  "lane", "{}.stall_ps", stat_unit::ps, "time a finished stage waited for the next queue");
inline constexpr stat_decl wait_ps =
  declare_stat("lane", "{}.wait_ps", stat_unit::ps, "time a stage waited on a reply or credit");
inline constexpr stat_decl stages =
  declare_stat("lane", "{}.stages", stat_unit::count, "stages served");
inline constexpr stat_decl bytes =
  declare_stat("lane", "{}.bytes", stat_unit::bytes, "bytes the lane's stages moved");
inline constexpr std::array all = {busy_ps, stall_ps, wait_ps, stages, bytes};
} // namespace lane_stats

/// (A PE_CPU's commands are rows of its command table, not figures:
/// runtime/machine/command_table.hpp.)

/// A PE_CPU's kernel (ADR-0027's kernel time).
namespace kernel_stats {
inline constexpr stat_decl finished =
  declare_stat("kernel", "kernel.finished", stat_unit::flag, "1 if the kernel returned");
inline constexpr stat_decl start_ps =
  declare_stat("kernel", "kernel.start_ps", stat_unit::ps, "when the kernel started");
inline constexpr stat_decl end_ps =
  declare_stat("kernel", "kernel.end_ps", stat_unit::ps, "when the kernel returned");
inline constexpr stat_decl blocked_load_ps = declare_stat(
  "kernel", "kernel.blocked_load_ps", stat_unit::ps, "time blocked on a load's data");
inline constexpr stat_decl wait_ps =
  declare_stat("kernel", "kernel.wait_ps", stat_unit::ps, "time blocked in wait() on handles");
inline constexpr stat_decl tcm_wait_ps =
  declare_stat("kernel", "kernel.tcm_wait_ps", stat_unit::ps, "time blocked on TCM space");
inline constexpr stat_decl last_resumed_by = declare_stat(
  "kernel", "kernel.last_resumed_by", stat_unit::number,
  "the command whose completion last resumed the finished kernel (0: none)");
inline constexpr stat_decl tcm_peak_bytes =
  declare_stat("kernel", "kernel.tcm_peak_bytes", stat_unit::bytes, "most TCM allocated at once");
/// In a program, per launch (qualified by its number): when its kernel on
/// this PE returned, and the command whose completion last resumed it.
inline constexpr stat_decl launch_end_ps = declare_stat(
  "kernel", "launch{}.end_ps", stat_unit::ps, "when the launch's kernel on this PE returned");
inline constexpr stat_decl launch_last_command =
  declare_stat("kernel", "launch{}.last_command", stat_unit::number,
               "the command whose completion last resumed the launch's kernel (0: none)");
/// In a one-kernel run, per program of the grid dealt to this PE
/// (qualified by its linear id): when it started, when its body returned.
inline constexpr stat_decl program_start_ps = declare_stat(
  "kernel", "program{}.start_ps", stat_unit::ps, "when the grid's program started here");
inline constexpr stat_decl program_end_ps = declare_stat(
  "kernel", "program{}.end_ps", stat_unit::ps, "when the grid's program's body returned");
inline constexpr std::array all = {finished,        start_ps,         end_ps,
                                   blocked_load_ps, wait_ps,          tcm_wait_ps,
                                   last_resumed_by, tcm_peak_bytes,   launch_end_ps,
                                   launch_last_command, program_start_ps, program_end_ps};
} // namespace kernel_stats

/// A PE_SCHEDULER: its feeder, its TCM reserve (each command's body, II
/// prediction and steady interval are rows of its command table).
namespace scheduler_stats {
inline constexpr stat_decl feeder_stall_ps = declare_stat(
  "pe_scheduler", "feeder.stall_ps", stat_unit::ps, "time the feeder held a tile on a full queue");
inline constexpr stat_decl tcm_peak_bytes = declare_stat(
  "pe_scheduler", "tcm.peak_bytes", stat_unit::bytes, "most reserve in use (when it held a tile)");
inline constexpr stat_decl tcm_stall_ps = declare_stat(
  "pe_scheduler", "tcm.stall_ps", stat_unit::ps, "time tiles waited for the TCM reserve");
inline constexpr stat_decl tiles_fed =
  declare_stat("pe_scheduler", "tiles_fed", stat_unit::count, "tiles released to the units");
inline constexpr stat_decl commands_done =
  declare_stat("pe_scheduler", "commands_done", stat_unit::count, "commands completed");
inline constexpr std::array all = {feeder_stall_ps, tcm_peak_bytes, tcm_stall_ps, tiles_fed,
                                   commands_done};
} // namespace scheduler_stats

/// An M_CPU's kernel launch.
namespace launch_stats {
inline constexpr stat_decl kernels =
  declare_stat("m_cpu", "kernels", stat_unit::count, "PEs the launch went to");
inline constexpr stat_decl kernels_done =
  declare_stat("m_cpu", "kernels_done", stat_unit::count, "PEs whose kernel completed");
inline constexpr stat_decl launch_ps =
  declare_stat("m_cpu", "launch_ps", stat_unit::ps, "when the launch reached the M_CPU");
inline constexpr stat_decl done_ps = declare_stat(
  "m_cpu", "done_ps", stat_unit::ps, "when the host learned of the last completion");
inline constexpr std::array all = {kernels, kernels_done, launch_ps, done_ps};
} // namespace launch_stats

/// Per launch of a host program (the host node), qualified by its number.
namespace program_stats {
inline constexpr stat_decl issue_ps = declare_stat(
  "host", "launch{}.issue_ps", stat_unit::ps, "when the host issued the launch");
inline constexpr stat_decl done_ps = declare_stat(
  "host", "launch{}.done_ps", stat_unit::ps, "when the launch's last completion reached the host");
inline constexpr stat_decl decided_by = declare_stat(
  "host", "launch{}.decided_by", stat_unit::number,
  "1 + the launch whose completion let it be issued (0: issued at the start)");
inline constexpr std::array all = {issue_ps, done_ps, decided_by};
} // namespace program_stats

} // namespace kb
