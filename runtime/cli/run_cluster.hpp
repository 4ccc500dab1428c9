#pragma once
// The processes of a split `kernbench run` (--procs, --peers; issue 13),
// shared by the built-in driver and kernel runs (--kernel): the options
// every process gets, joining (a worker connects to rank 0; rank 0 starts or
// reaches the others and sends each its part), and the end (rank 0 waits
// for the others' outcome; a worker hands its figures over and stops).

#include "runtime/cli/peer_group.hpp"
#include "runtime/cli/run_cli.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/run/machine_run.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb {

/// The options every process of a split run shares: they make each build
/// the same machine, the same programs (a kernel's grid, its tensors from
/// the same seed or files) and the same data requests (outputs are rank
/// 0's business; the topology and component files travel as text).
std::vector<std::string> part_args(const run_cli& c);

/// Joins this process to its split run, if it is part of one, and fills
/// `opts.cluster`: a worker (--rank > 0) connects to rank 0 and watches its
/// lifeline; rank 0 of a split run starts (--procs) or reaches (--peers)
/// the others and returns them. Null for a run in one process.
std::unique_ptr<peer_group> join_cluster(const run_cli& c, const topology_spec& topo,
                                         cut_unit cut, const std::string& topology_path,
                                         machine_options& opts);

/// After the run: waits for the other processes (rank 0), prints what
/// failed, and returns the exit code when this process is done (an error,
/// or a worker, which writes --wire-stats); nullopt when rank 0 reports.
/// `wire` gets the others' cross-process totals.
std::optional<int> end_cluster(const run_cli& c, peer_group* peers, const std::string& error,
                               wire_totals* wire = nullptr);

/// Ends a worker whose part rank 0 has (end_cluster returned 0: its
/// results handed in, --wire-stats written) at once, standard output and
/// error flushed (status 1 if standard output cannot be written): its
/// actors' teardown, ~0.1 s on 2,048 PEs, would only delay its peer's word
/// to rank 0, which waits for it. A worker writes no other file.
[[noreturn]] void end_part_process();

} // namespace kb
