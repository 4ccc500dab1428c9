#pragma once
// The host side of a program run (kernels/program.hpp, docs/adr/0043):
// builds the program's plan, places and deploys its tensors once, prepares
// every launch's kernel with its arguments and binds its tensors to the
// program's, deals each launch's grid to its PEs, adds the host node and
// its links to the machine, runs it (Phase 1: the host issues the launches
// as their dependencies complete), replays the whole op log (Phase 2) and
// verifies every output against the program's reference.

#include "kernels/program.hpp"
#include "runtime/host/data_session.hpp"
#include "runtime/host/kernel_run.hpp"
#include "runtime/run/machine_run.hpp"

#include <map>
#include <string>
#include <vector>

namespace kb {

/// One launch as it ran: what the report shows besides the host's figures.
struct launch_info {
  std::string kernel;
  std::string queue;
  std::map<std::string, std::string> args; ///< every argument, defaults filled in
  std::vector<uint32_t> after;
  std::vector<std::string> writes; ///< the program's tensors bound to the kernel's outputs
  std::vector<std::string> pes; ///< the PEs that got programs, in dealing order
  uint32_t programs = 0;
  std::array<uint32_t, 3> grid{1, 1, 1};
};

struct program_run_result {
  machine_run run;
  std::string program;
  std::vector<launch_info> launches;
  std::vector<std::pair<std::string, tl::ptr>> tensors; ///< where the host put them
  std::vector<std::string> where;   ///< each tensor's memory, in words (same order)
  std::vector<kernel_tensor> specs; ///< the tensors as the program declared them
  std::vector<std::string> pes;     ///< every PE any launch runs on, in machine order
  data_result data;
};

/// Runs program `def` with `args` on `topo` (`o.pes` limits the PEs launches
/// may name; `o.places` and `o.input_files` name the program's tensors).
/// Bad programs are std::invalid_argument naming the program and launch; a
/// failed run is in `run.error`.
program_run_result run_program(topology_spec topo, const program_def& def, const kernel_args& args,
                               const kernel_run_options& o);

/// Adds the host node (unless the topology declares one at the system
/// level) and a link pair between it and every M_CPU, of the host's
/// `link_latency_ns`. std::invalid_argument if a cube has no M_CPU.
void add_host(topology_spec& topo);

} // namespace kb
