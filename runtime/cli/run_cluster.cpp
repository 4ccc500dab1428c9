#include "runtime/cli/run_cluster.hpp"

#include "runtime/cli/command_line.hpp"
#include "runtime/cli/host_port.hpp"
#include "runtime/cli/kernel_cli.hpp"
#include "runtime/cli/process_group.hpp"
#include "runtime/engine/cross_process.hpp"
#include "runtime/io/atomic_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kb {

namespace {

std::string read_text(const std::string& path, const char* option) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  if (!in)
    throw std::invalid_argument(fmt::format("{} {}: cannot read it", option, path));
  return s.str();
}

} // namespace

std::vector<std::string> part_args(const run_cli& c) {
  std::vector<std::string> a{"--op", c.op, "--op-kind", c.op_kind,
                             "--M", std::to_string(c.m), "--K", std::to_string(c.k),
                             "--N", std::to_string(c.n), "--dtype", c.dtype_name,
                             "--repeat", std::to_string(c.repeat), "--pes", c.pes,
                             "--threads", std::to_string(c.threads), "--delivery", c.delivery,
                             "--partition", c.partition, "--shards", std::to_string(c.shards),
                             "--placement", c.placement, "--cut", c.cut};
  auto add = [&a](const char* opt, const std::string& v) {
    if (!v.empty()) {
      a.emplace_back(opt);
      a.push_back(v);
    }
  };
  add("--out-dtype", c.out_dtype_name);
  add("--max-sim-time", c.max_sim_time);
  add("--stall-timeout", fmt::format("{}", c.stall_timeout));
  if (c.runs_kernels())
    add("--kernel-stack", std::to_string(c.kernel_stack_kib));
  a.emplace_back("--tile");
  for (auto t : c.tile)
    a.push_back(std::to_string(t));
  for (const auto& e : c.epilogue)
    add("--epilogue", e);
  for (const auto& o : c.set)
    add("--set", o);
  if (c.a_pinned)
    a.emplace_back("--a-pinned");
  if (c.b_pinned)
    a.emplace_back("--b-pinned");
  if (c.trace_hops)
    a.emplace_back("--trace-hops");
  if (c.memory) // each process measures its own nodes; rank 0 reports them all
    a.emplace_back("--memory");
  for (const auto& s : c.trace_filters.select)
    add("--trace-select", s);
  add("--trace-window", c.trace_filters.window);
  add("--trace-kinds", c.trace_filters.kinds);
  if (!c.trace.empty() || c.record || !c.records.empty())
    a.emplace_back("--record");
  if (!c.json.empty() || c.record_stages)
    a.emplace_back("--record-stages");
  if (data_request_of(c).wants_results())
    a.emplace_back("--ship-ops");
  a.emplace_back("--seed");
  a.push_back(std::to_string(c.seed));
  if (c.procs > 1) // local peers: the processes share this host's cores
    a.emplace_back("--one-host");
  if (c.runs_kernels()) {
    // A kernel's grid covers every PE unless --pes was given.
    a[std::find(a.begin(), a.end(), "--pes") - a.begin() + 1] = c.pes_given ? c.pes : "all";
    if (!c.kernel.empty())
      add("--kernel", c.kernel);
    if (!c.program.empty())
      add("--program", c.program);
    for (const auto& x : c.args)
      add("--arg", x);
    for (const auto& x : c.inputs)
      add("--input", x);
    for (const auto& x : c.places)
      add("--place", x);
    if (c.input_cast)
      a.emplace_back("--input-cast");
    for (const auto& x : c.kernel_libs)
      add("--kernel-lib", x);
  }
  return a;
}

std::unique_ptr<peer_group> join_cluster(const run_cli& c, const topology_spec& topo,
                                         cut_unit cut, const std::string& topology_path,
                                         machine_options& opts) {
  std::unique_ptr<peer_group> peers;
  opts.cluster.ranks = c.procs;
  opts.cluster.rank = c.rank;
  if (c.one_host && c.rank == 0)
    throw std::invalid_argument("--one-host: only for the worker processes rank 0 starts (--rank R, R > 0); rank 0 knows it from --procs");
  opts.cluster.one_host = c.rank > 0 ? c.one_host : c.procs > 1;
  if (c.rank > 0) {
    if (c.rank >= c.procs)
      throw std::invalid_argument(
        fmt::format("--rank {}: must be below --procs {}", c.rank, c.procs));
    if (auto host = parse_host_port_later(c.connect, "--connect")) {
      // HOST:- : the port comes on standard input once rank 0 listens; this
      // rank builds its part meanwhile (a peer starts it so).
      opts.cluster.host = std::move(*host);
      opts.cluster.await_port = [] { return read_port_line(0, "--connect HOST:-"); };
    } else {
      const host_port rank0 = parse_host_port(c.connect, "--connect");
      opts.cluster.host = rank0.host;
      opts.cluster.port = rank0.port;
    }
    watch_lifeline(fmt::format("kernbench run (rank {})", c.rank));
  } else if (c.procs > 1 || !c.peers.empty()) {
    // The other ranks are peers: started here (--procs) or on other hosts
    // (--peers); from here on both take the same path.
    if (c.procs > 1 && !c.peers.empty())
      throw std::invalid_argument(fmt::format(
        "--procs {} with --peers: give one or the other (--peers runs one process per peer "
        "besides this one)", c.procs));
    peers = std::make_unique<peer_group>("kernbench run");
    if (c.procs > 1)
      peers->add_local(c.procs - 1);
    else
      peers->add_remote(parse_host_ports(c.peers, "--peers"));
    const uint32_t cube_count = topo.sips * topo.cubes_per_sip;
    if (peers->ranks() > cube_count)
      throw std::invalid_argument(fmt::format(
        "{}: {} processes, but the machine has {} cube(s); a process runs at least one",
        c.procs > 1 ? "--procs" : "--peers", peers->ranks(), cube_count));
    if (cut == cut_unit::sip && peers->ranks() > topo.sips)
      throw std::invalid_argument(fmt::format(
        "--cut sip: {} processes, but the machine has {} SIP(s); a process runs at least one",
        peers->ranks(), topo.sips));
    peer_job job;
    job.topology = read_text(topology_path, "--topology");
    job.args = part_args(c);
    try {
      peers->connect(std::move(job));
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(c.procs > 1 ? std::string(e.what())
                                              : fmt::format("--peers: {}", e.what()));
    }
    opts.cluster.ranks = peers->ranks();
    // The group outlives this function (it is returned), not `peers` itself.
    opts.cluster.on_listening = [group = peers.get()](uint16_t port) { group->go(port); };
  }
  return peers;
}

std::optional<int> end_cluster(const run_cli& c, peer_group* peers, const std::string& error,
                               wire_totals* wire) {
  peer_group::outcome parts;
  if (peers)
    parts = peers->finish(error.empty() ? std::chrono::seconds(60) : std::chrono::seconds(5));
  if (!error.empty() || !parts.error.empty()) {
    fmt::print(stderr, "{}", parts.error);
    if (!error.empty())
      fmt::print(stderr, "kernbench run{}: {}\n",
                 c.rank > 0 ? fmt::format(" (rank {})", c.rank) : "", error);
    return 1;
  }
  if (wire)
    *wire = parts.wire;
  if (c.rank > 0) {
    // Rank 0 reports for the whole run; the peer hands these to it.
    const auto& w = cross_process();
    if (!c.wire_stats.empty())
      write_file_atomically(c.wire_stats, "--wire-stats file",
                            fmt::format("{} {} {}\n", w.batches.load(), w.events.load(),
                                        w.bytes.load()));
    return 0;
  }
  return std::nullopt;
}

void end_part_process() {
  const int status = check_stdout(0);
  std::fflush(stderr);
  std::_Exit(status);
}

} // namespace kb
