#pragma once
// What `kernbench run` reads and checks before it builds the machine (the
// driver's path; a kernel run goes on from read_machine to kernel_cli): the
// machine as resolved after every --set, the PEs, the engine's modes, the
// programs and the data the run moves. Each throws std::invalid_argument
// naming the option on bad input.

#include "runtime/cli/run_cli.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/run/machine_run.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/host/data_session.hpp"
#include "runtime/host/driver_data.hpp"
#include "runtime/host/placement.hpp"
#include "runtime/plan/tile_source.hpp"

#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kb {

/// The machine of a run: its topology file, the document as resolved after
/// every --set, and the parsed topology.
struct machine_input {
  std::string path;
  YAML::Node doc;
  topology_spec topo;
};
machine_input read_machine(const run_cli& c);

/// The PEs `--pes` names: the first N of the topology's, or all of them.
std::vector<std::string> chosen_pes(const run_cli& c, const topology_spec& topo);

/// A kernel's `--pes N|all` (default all): the PEs its grid is dealt to,
/// 0 for all (the kernel run checks N against the machine).
size_t grid_pes(const run_cli& c);

/// The engine's options given by name on the command line, checked.
struct run_modes {
  delivery_mode delivery;
  cut_unit cut;
  kb::placement placement;
};
run_modes parse_modes(const run_cli& c);

/// The tiles of the first PE's first command (null for neither GEMM nor
/// math): a bad shape or tile is a usage error, found before anything is
/// built.
std::shared_ptr<const tile_source> first_tiles_of(const run_cli& c,
                                                  const operand_addresses& operands);

/// Each PE's program: --repeat commands on its operands; `described` gets
/// the first PE's commands in words.
std::map<std::string, std::shared_ptr<const pe_program>>
programs_of(const run_cli& c, const std::vector<std::string>& pes,
            const std::vector<operand_addresses>& operands, std::vector<std::string>& described);

/// The data of the run (--verify, --dump-tensors, --oplog, --op-digests):
/// the driver is a kernel whose commands move real bytes as well; `dd`
/// gets the operands and expected results. Null when no data is asked
/// for, or on a rank other than 0 (a split run writes one op log there:
/// the other processes ship their nodes' records with their summaries,
/// merged in op_key order, so it is the same bytes as a one-process run's).
std::unique_ptr<data_session>
data_session_of(const run_cli& c, const std::vector<std::string>& pes,
                const std::map<std::string, std::shared_ptr<const pe_program>>& programs,
                driver_data& dd);

} // namespace kb
