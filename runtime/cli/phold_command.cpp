#include "runtime/cli/phold_command.hpp"

#include "runtime/cli/process_group.hpp"
#include "runtime/phold/phold_run.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace kb {

namespace {

struct phold_cli {
  phold::params p;
  size_t threads = 1;
  uint32_t shards = 0;
  uint32_t procs = 1;
  uint32_t rank = 0;
  std::string connect; // host:port of rank 0 (workers)
  uint16_t listen_port = 0;
  bool spawn_workers = true;
  bool sequential = false;
  // PHOLD's windows are wide (lookahead = mean gap): per-LP heaps of a few
  // events beat one shard-wide heap there (ADR-0009, measured).
  std::string delivery = "mailbox";
};

void print(const phold::outcome& o, const phold_cli& c) {
  const double sync_per_event =
    o.committed ? static_cast<double>(o.hub.sync_msgs()) / o.committed : 0.0;
  fmt::print("phold: lps={} events_per_lp={} remote={} lookahead_ps={} "
             "mean_ps={} end_ps={} threads={} procs={}{}\n",
             c.p.lps, c.p.events_per_lp, c.p.remote, c.p.lookahead_ps,
             c.p.mean_ps, c.p.end_ps, c.threads, c.procs,
             c.sequential ? " (sequential yardstick)" : "");
  fmt::print("committed events   {}\n", o.committed);
  fmt::print("wall time          {:.6f} s\n", o.seconds);
  fmt::print("events/s           {:.0f}\n", o.events_per_second());
  fmt::print("remote messages    {}\n", o.remote_msgs);
  if (!c.sequential) {
    fmt::print("windows            {}\n", o.hub.windows);
    fmt::print("sync messages      {} (advance {}, report {}, peer null {}, lbts {}); "
               "peer batches {}; lbts jumps {}\n",
               o.hub.sync_msgs(), o.hub.advance_msgs, o.hub.report_msgs,
               o.hub.peer_null_msgs, o.hub.lbts_msgs, o.hub.peer_msgs, o.hub.lbts_jumps);
    fmt::print("sync msgs/event    {:.4f}\n", sync_per_event);
  }
  fmt::print("digest             {:016x}\n", o.digest);
}

int run(const phold_cli& c) {
  if (c.sequential) {
    print(phold::run_sequential(c.p), c);
    return 0;
  }
  cluster_options cl;
  cl.ranks = c.procs;
  cl.rank = c.rank;
  std::unique_ptr<process_group> workers;
  if (c.rank > 0) {
    auto colon = c.connect.rfind(':');
    if (colon == std::string::npos)
      throw std::invalid_argument("--connect must be HOST:PORT");
    cl.host = c.connect.substr(0, colon);
    cl.port = static_cast<uint16_t>(std::stoul(c.connect.substr(colon + 1)));
  } else if (c.procs > 1) {
    cl.port = c.listen_port;
    workers = std::make_unique<process_group>();
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
                           "--connect", fmt::format("127.0.0.1:{}", port)});
    };
  }
  const auto delivery = parse_delivery(c.delivery);
  if (!delivery)
    throw std::invalid_argument("--delivery " + c.delivery + ": expected direct or mailbox");
  phold::outcome o = phold::run_actors(c.p, c.threads, cl, c.shards, *delivery);
  std::string worker_err = workers ? workers->wait_all() : std::string{};
  if (!o.error.empty() || !worker_err.empty()) {
    fmt::print(stderr, "phold failed: {}{}\n", o.error, worker_err);
    return 1;
  }
  if (c.rank == 0)
    print(o, c);
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
  cmd->add_option("--seed", c->p.seed, "random seed")->capture_default_str();
  cmd->add_option("--threads", c->threads, "CAF worker threads")
    ->capture_default_str()
    ->check(CLI::Range(1, 1024));
  cmd->add_option("--shards", c->shards, "hubs per process (0: one per "
                  "thread); results never depend on it")->capture_default_str();
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
  cmd->add_flag("!--no-spawn", c->spawn_workers,
                "rank 0 waits for workers started by hand instead of "
                "starting them");
  cmd->add_flag("--sequential", c->sequential,
                "run the sequential yardstick instead of the actors");
  cmd->callback([c, &exit_code] { exit_code = run(*c); });
  return cmd;
}

} // namespace kb
