#include "runtime/cli/phold_command.hpp"

#include "runtime/cli/cli_checks.hpp"
#include "runtime/cli/host_port.hpp"
#include "runtime/cli/memory_budget.hpp"
#include "runtime/cli/process_group.hpp"
#include "runtime/engine/cross_process.hpp"
#include "runtime/engine/partition.hpp"
#include "runtime/engine/thread_probe.hpp"
#include "runtime/phold/phold_run.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>

namespace kb {

namespace {

// Measured on the engine (x86-64, CAF 0.17): the LP mesh is one link class
// (no per-pair state), so resident memory grows per LP (its actor, routes,
// generator: 16,384 LPs 91 MB, 65,536 LPs 340 MB with 16 events each, about
// 5 KB per LP) and per pending event.
constexpr uint64_t phold_bytes_per_event = 128;
constexpr uint64_t phold_bytes_per_lp = 5120;

/// Hubs per process: each is an actor with its own event queue and window
/// state; more than this gains nothing on any machine.
constexpr uint32_t max_shards = 1024;

struct phold_cli {
  phold::params p;
  size_t threads = 1;
  uint32_t shards = 0;
  uint32_t procs = 1;
  uint32_t rank = 0;
  std::string connect; // host:port of rank 0 (workers)
  uint16_t listen_port = 0;
  bool spawn_workers = true;
  bool one_host = false; // workers rank 0 started: every rank on this host
  bool sequential = false;
  // PHOLD's windows are wide (lookahead = mean gap): per-LP heaps of a few
  // events beat one shard-wide heap there (ADR-0009, measured).
  std::string delivery = "direct";
};

void print(const phold::outcome& o, const phold_cli& c, double total_seconds) {
  const double sync_per_event =
    o.committed ? static_cast<double>(o.hub.sync_msgs()) / o.committed : 0.0;
  fmt::print("phold: lps={} events_per_lp={} remote={} lookahead_ps={} "
             "mean_ps={} end_ps={} threads={} procs={}{}\n",
             c.p.lps, c.p.events_per_lp, c.p.remote, c.p.lookahead_ps,
             c.p.mean_ps, c.p.end_ps, c.threads, c.procs,
             c.sequential ? " (sequential yardstick)" : "");
  fmt::print("committed events   {}\n", o.committed);
  fmt::print("wall time          {:.6f} s\n", o.seconds);
  // Everything but the event loop: building the LPs and their links,
  // spawning the actors, starting CAF, and tearing it all down again.
  fmt::print("set-up + teardown  {:.6f} s\n", std::max(0.0, total_seconds - o.seconds));
  fmt::print("events/s           {:.0f}\n", o.events_per_second());
  fmt::print("remote messages    {}\n", o.remote_msgs);
  if (!c.sequential) {
    fmt::print("shards             {}\n", o.hub.shards);
    fmt::print("windows            {}\n", o.hub.windows);
    fmt::print("sync messages      {} (advance {}, report {}, peer null {}, lbts {}, yield {}); "
               "peer batches {}; lbts jumps {}\n",
               o.hub.sync_msgs(), o.hub.advance_msgs, o.hub.report_msgs,
               o.hub.peer_null_msgs, o.hub.lbts_msgs, o.hub.yield_msgs, o.hub.peer_msgs,
               o.hub.lbts_jumps);
    fmt::print("sync msgs/event    {:.4f}\n", sync_per_event);
    if (c.procs > 1) {
      // Rank 0's own batches to the other processes, and how they went:
      // through shared memory on one host (ADR-0041), else the network.
      const auto& x = cross_process();
      fmt::print("cross-process      {} batches from rank 0, {} through shared memory\n",
                 x.batches.load(), x.ring_batches.load());
    }
  }
  fmt::print("digest             {:016x}\n", o.digest);
}

/// What a run will hold at once, roughly: the initial events, and per LP
/// its actor, routes and generator.
void check_phold_memory(const phold_cli& c) {
  const uint64_t lps = c.p.lps;
  const uint64_t events = uint64_t{lps} * c.p.events_per_lp;
  const uint64_t bytes =
    add_sat(mul_sat(events, phold_bytes_per_event), mul_sat(lps, phold_bytes_per_lp));
  check_memory(fmt::format("--lps {} --events-per-lp {} ({} initial events)", c.p.lps,
                           c.p.events_per_lp, events),
               bytes);
}

int run(const phold_cli& c) {
  const auto t0 = std::chrono::steady_clock::now();
  auto since_t0 = [&t0] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  if (c.rank >= c.procs)
    throw std::invalid_argument(
      fmt::format("--rank {}: must be below --procs {}", c.rank, c.procs));
  if (c.one_host && c.rank == 0)
    throw std::invalid_argument("--one-host: only for the worker processes rank 0 starts (--rank R, R > 0); rank 0 knows it from --procs");
  if (c.procs > c.p.lps)
    throw std::invalid_argument(
      fmt::format("--procs {}: more processes than LPs (--lps {})", c.procs, c.p.lps));
  phold::validate(c.p);
  check_phold_memory(c);
  if (c.sequential) {
    const phold::outcome o = phold::run_sequential(c.p);
    print(o, c, since_t0());
    return 0;
  }
  check_threads_can_start(c.threads, fmt::format("--threads {}", c.threads));
  cluster_options cl;
  cl.ranks = c.procs;
  cl.rank = c.rank;
  // Workers started here share this host's cores with rank 0 (shard_lanes).
  cl.one_host = c.rank > 0 ? c.one_host : c.procs > 1 && c.spawn_workers;
  std::unique_ptr<process_group> workers;
  if (c.rank > 0) {
    watch_lifeline(fmt::format("kernbench phold (rank {})", c.rank));
    const host_port rank0 = parse_host_port(c.connect, "--connect");
    cl.host = rank0.host;
    cl.port = rank0.port;
  } else if (c.procs > 1) {
    cl.port = c.listen_port;
    workers = std::make_unique<process_group>("kernbench phold");
    cl.on_listening = [&](uint16_t port) {
      if (!c.spawn_workers) {
        fmt::print(stderr, "rank 0 listening on port {}; start ranks 1..{} "
                           "with --rank R --connect HOST:{}\n",
                   port, c.procs - 1, port);
        return;
      }
      for (uint32_t r = 1; r < c.procs; ++r)
        workers->spawn(r, {"phold", "--lps", std::to_string(c.p.lps),
                           "--events-per-lp", std::to_string(c.p.events_per_lp),
                           "--remote", fmt::format("{}", c.p.remote),
                           "--lookahead-ps", std::to_string(c.p.lookahead_ps),
                           "--mean-ps", std::to_string(c.p.mean_ps),
                           "--end-ps", std::to_string(c.p.end_ps),
                           "--seed", std::to_string(c.p.seed),
                           "--threads", std::to_string(c.threads),
                           "--shards", std::to_string(c.shards),
                           "--delivery", c.delivery,
                           "--procs", std::to_string(c.procs),
                           "--rank", std::to_string(r),
                           "--connect", fmt::format("127.0.0.1:{}", port),
                           "--one-host"});
    };
  }
  const auto delivery = parse_delivery(c.delivery);
  if (!delivery)
    throw std::invalid_argument("--delivery " + c.delivery + ": expected direct or mailbox");
  if (const std::string note = shards_note(c.shards, c.threads, c.procs, cl.one_host);
      !note.empty() && c.rank == 0)
    fmt::print(stderr, "{}\n", note);
  phold::outcome o = phold::run_actors(c.p, c.threads, cl, c.shards, *delivery);
  const std::string worker_err = workers ? workers->wait_all() : std::string{};
  if (!o.error.empty() || !worker_err.empty()) {
    fmt::print(stderr, "{}", worker_err);
    if (!o.error.empty())
      fmt::print(stderr, "kernbench phold{}: run failed: {}\n",
                 c.rank > 0 ? fmt::format(" (rank {})", c.rank) : "", o.error);
    return 1;
  }
  if (c.rank == 0)
    print(o, c, since_t0());
  return 0;
}

} // namespace

CLI::App* add_phold_command(CLI::App& app, int& exit_code) {
  auto c = std::make_shared<phold_cli>();
  auto* cmd = app.add_subcommand("phold", "PHOLD, the standard PDES benchmark, "
                                          "on the engine");
  cmd->add_option("--lps", c->p.lps, "logical processes")->capture_default_str();
  cmd->add_option("--events-per-lp", c->p.events_per_lp, "initial events per LP")
    ->capture_default_str();
  cmd->add_option("--remote", c->p.remote, "probability an event goes to a "
                                           "random LP")->capture_default_str();
  cmd->add_option("--lookahead-ps", c->p.lookahead_ps, "fixed part of every "
                  "delay; the link latency")->capture_default_str();
  cmd->add_option("--mean-ps", c->p.mean_ps, "mean of the exponential part")
    ->capture_default_str();
  cmd->add_option("--end-ps", c->p.end_ps, "events with t < end are committed")
    ->capture_default_str();
  cmd->add_option("--seed", c->p.seed, "random seed")
    ->capture_default_str()
    ->check(unsigned_value());
  cmd->add_option("--threads", c->threads, "CAF worker threads")
    ->capture_default_str()
    ->check(CLI::Range(1, 1024));
  cmd->add_option("--shards", c->shards, "hubs per process (0: one per "
                  "thread; at most one per thread); results never depend on it")
    ->capture_default_str()
    ->check(CLI::Range(uint32_t{0}, max_shards));
  cmd->add_option("--delivery", c->delivery,
                  "direct (a shard's event loop calls its LPs' handlers) or mailbox "
                  "(a CAF message pair per LP and lookahead window); same results")
    ->capture_default_str();
  cmd->add_option("--procs", c->procs, "processes the LPs are split over "
                                       "(loopback, caf::io)")
    ->capture_default_str()
    ->check(CLI::Range(1, 1024));
  cmd->add_option("--rank", c->rank, "this process's rank (workers)");
  cmd->add_option("--connect", c->connect, "HOST:PORT of rank 0 (workers)");
  cmd->add_option("--listen-port", c->listen_port, "rank 0's port (0: any)");
  cmd->add_flag("--one-host", c->one_host, "every rank runs on this host (workers that rank 0 "
                                           "started)")
    ->group("");
  cmd->add_flag("!--no-spawn", c->spawn_workers,
                "rank 0 waits for workers started by hand instead of "
                "starting them");
  cmd->add_flag("--sequential", c->sequential,
                "run the sequential yardstick instead of the actors");
  cmd->footer("Examples:\n"
              "  kernbench phold --lps 1024 --events-per-lp 64 --threads 2\n"
              "  kernbench phold --lps 1024 --sequential   # the sequential yardstick");
  cmd->callback([c, &exit_code] { exit_code = run(*c); });
  return cmd;
}

} // namespace kb
