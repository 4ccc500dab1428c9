#pragma once
// The text report of a kernel or host-program run, as a kernel author reads
// it (issue 62 item 3; docs/adr/0045-a-kernel-authors-report.md): at most
// ~60 lines at any machine size. The kernel's time and where it went (by
// what the PE's units were doing for it, kernel_split.hpp), the critical
// path with its repeats collapsed, the slowest programs of the grid, the
// busiest unit lanes, links and memories, and the run's throughput. Every
// per-command and per-PE line is behind `--per-command` / `--per-pe` (the
// detailed report, run_report.cpp); the JSON keeps the full data.

#include "runtime/report/run_report.hpp"

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace kb {

/// The lines the author report holds at most, whatever the machine (its
/// sections are capped; a test holds it to this).
inline constexpr std::size_t author_report_lines = 60;

void write_author_summary(std::ostream& out, const report_input& in);

/// One run of the critical path: `count` repeats of the `period` commands
/// starting at step `first` (count 1: those commands once).
struct path_run {
  std::size_t first = 0, period = 1, count = 1;
};

/// The critical path's steps as runs: at each step, the period (1..8) whose
/// repeats cover the most steps, if it repeats at least twice; commands are
/// the same when their text and unit are.
std::vector<path_run> collapse_path(const std::vector<path_step>& steps);

} // namespace kb
