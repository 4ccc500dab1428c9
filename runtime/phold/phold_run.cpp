#include "runtime/phold/phold_run.hpp"

#include "runtime/phold/phold_lp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <queue>
#include <stdexcept>

namespace kb::phold {

namespace {

void check_time(const char* option, uint64_t ps) {
  if (ps > max_time_ps)
    throw std::invalid_argument(fmt::format("{} {}: exceeds {}", option, ps, max_time_reason));
}

} // namespace

void validate(const params& p) {
  if (p.lps == 0)
    throw std::invalid_argument("--lps must be >= 1");
  if (p.lps > max_lps)
    throw std::invalid_argument(fmt::format(
      "--lps {}: more than the limit of {} (every LP is an actor, and every shard keeps "
      "a few words per LP)",
      p.lps, max_lps));
  // Written so that NaN fails too (every comparison with NaN is false).
  if (!(p.remote >= 0 && p.remote <= 1))
    throw std::invalid_argument(fmt::format("--remote {}: must be a probability within [0, 1]",
                                            p.remote));
  if (p.lookahead_ps == 0)
    throw std::invalid_argument("--lookahead-ps must be >= 1 (a zero lookahead "
                                "cannot be synchronised conservatively)");
  check_time("--lookahead-ps", p.lookahead_ps);
  check_time("--mean-ps", p.mean_ps);
  check_time("--end-ps", p.end_ps);
}

outcome run_actors(const params& p, size_t threads,
                   const cluster_options& cluster, uint32_t shards,
                   delivery_mode delivery, bool exact_shards) {
  validate(p);
  simulation sim;
  for (uint32_t i = 0; i < p.lps; ++i)
    sim.add_node(lp_name(i, p.lps), make_node_factory<phold_lp>(p, i));
  // Every LP reaches every other over a pure wire of the lookahead: one link
  // class, not lps^2 link objects (links numbered in destination order,
  // skipping the LP itself).
  std::vector<std::string> lps;
  lps.reserve(p.lps);
  for (uint32_t i = 0; i < p.lps; ++i)
    lps.push_back(lp_name(i, p.lps));
  sim.add_all_to_all(std::move(lps), ps(p.lookahead_ps));
  // Contiguous blocks of LPs per process.
  const uint32_t n = p.lps;
  sim.set_partition([n](const std::string& name, const node_place&, uint32_t ranks) {
    const uint64_t i = std::stoull(name.substr(2));
    return static_cast<uint32_t>(i * ranks / n);
  });
  run_options opts;
  opts.threads = threads;
  opts.shards = shards;
  opts.exact_shards = exact_shards;
  opts.delivery = delivery;
  opts.end = ps(p.end_ps);
  opts.cluster = cluster;
  run_result r = sim.run(opts);

  outcome o;
  o.error = r.error;
  o.hub = r.hub;
  o.seconds = static_cast<double>(r.hub.run_wall_ns) * 1e-9;
  std::vector<lp_state> states(p.lps);
  for (const auto& s : r.nodes) {
    if (s.node >= p.lps)
      continue;
    for (const auto& f : s.figures) {
      if (f.is(phold_lp::stat_committed))
        states[s.node].committed = f.value;
      else if (f.is(phold_lp::stat_last_ps))
        states[s.node].last_ps = f.value;
    }
    o.remote_msgs += s.stats.messages_sent;
  }
  if (cluster.rank == 0 && r.nodes.size() != p.lps && o.error.empty())
    o.error = fmt::format("results of {} of {} LPs came back", r.nodes.size(), p.lps);
  for (const auto& s : states)
    o.committed += s.committed;
  o.digest = digest(states);
  return o;
}

namespace {

struct seq_event {
  uint64_t t;
  uint32_t src;
  uint64_t seq;
  uint32_t dst;
  bool operator>(const seq_event& o) const {
    return std::tie(t, src, seq) > std::tie(o.t, o.src, o.seq);
  }
};

} // namespace

outcome run_sequential(const params& p) {
  validate(p);
  std::vector<rng> rngs;
  rngs.reserve(p.lps);
  std::vector<uint64_t> seqs(p.lps, 0);
  std::vector<lp_state> states(p.lps);
  std::vector<seq_event> init;
  init.reserve(size_t{p.lps} * p.events_per_lp);
  for (uint32_t i = 0; i < p.lps; ++i) {
    rngs.emplace_back(p.seed, i);
    for (uint32_t j = 0; j < p.events_per_lp; ++j)
      init.push_back({exp_delay(rngs[i], p.mean_ps), i, seqs[i]++, i});
  }
  std::priority_queue<seq_event, std::vector<seq_event>, std::greater<>> pq(
    std::greater<>{}, std::move(init));
  outcome o;
  const auto t0 = std::chrono::steady_clock::now();
  while (!pq.empty() && pq.top().t < p.end_ps) {
    const seq_event ev = pq.top();
    pq.pop();
    lp_state& s = states[ev.dst];
    ++s.committed;
    s.last_ps = ev.t;
    const decision d = decide(rngs[ev.dst], ev.dst, p);
    if (d.dst != ev.dst)
      ++o.remote_msgs;
    pq.push({ev.t + p.lookahead_ps + d.exp_ps, ev.dst, seqs[ev.dst]++, d.dst});
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& s : states)
    o.committed += s.committed;
  o.digest = digest(states);
  return o;
}

} // namespace kb::phold
