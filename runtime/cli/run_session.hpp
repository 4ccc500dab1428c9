#pragma once
// One `kernbench run`, of the built-in driver (run_command.cpp) or of a
// kernel (kernel_cli.cpp): the options every run takes, checked and parsed
// here once into the engine's options, and the steps every run takes the
// same way: the checks before anything is read, the machine, the other
// processes of a split run, the heartbeat, the end of a split run's part,
// the report's common fields and the outputs. What differs stays with the
// caller: the driver's operands, programs and data; the kernel's grid,
// tensors and verdict.

#include "runtime/cli/heartbeat.hpp"
#include "runtime/cli/peer_group.hpp"
#include "runtime/cli/peer_protocol.hpp"
#include "runtime/cli/run_cli.hpp"
#include "runtime/cli/run_inputs.hpp"
#include "runtime/run/machine_run.hpp"
#include "runtime/engine/phase_clock.hpp"
#include "runtime/report/run_report.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb {

class run_session {
public:
  /// Everything before the run's own set-up: the options checked (those
  /// that do not apply refused by name), standard output claimed for
  /// `--json -`/`--csv -`, the output paths, the threads, the kernel
  /// libraries, the machine read (phase "read the machine"), and the
  /// engine's modes parsed into `opts` (threads, delivery, partition, cut,
  /// shards, limits; a part of a split run ships its op records).
  explicit run_session(const run_cli& c);

  /// Refuses the outputs that do not apply, then starts the other
  /// processes of a split run or joins them (rank 0: phase "start the
  /// other processes"). A run's actors are dropped while its report is
  /// written (a part's, while it ends).
  void join();
  /// The heartbeat of `what` (null without --progress).
  std::unique_ptr<heartbeat> start_heartbeat(const std::string& what, progress_totals totals);
  /// After the run: the exit status when this process ends here (a split
  /// run that failed, or a part, which hands in its results and ends at
  /// once with 0); nullopt when it goes on to report. `others`: the other
  /// processes' wire totals (rank 0).
  std::optional<int> end(const std::string& error, wire_totals* others = nullptr);
  /// The report's fields every run fills: the machine as built, `pes`, the
  /// result, names and records (moved out of `run`), how to reproduce it.
  void describe(report_input& rep, machine_run& run, std::vector<std::string> pes);
  /// The summary's phase ends; the outputs (--json, --csv, --trace, ...).
  void write(report_input& rep);
  /// Prints --timings and --memory; the exit status for `status` (0, or 3 for a
  /// verdict that failed).
  int close(int status);

  const run_cli& c;
  phase_clock phases; ///< --timings, the JSON's `timings`
  machine_input in;
  run_modes modes;
  machine_options opts;
  std::unique_ptr<peer_group> peers;
  std::vector<kind_memory> memory; ///< --memory: per node kind (describe fills it)
};

} // namespace kb
