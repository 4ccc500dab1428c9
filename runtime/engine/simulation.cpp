#include "runtime/engine/simulation.hpp"

#include "runtime/engine/heap_meter.hpp"
#include "runtime/engine/hub.hpp"
#include "runtime/engine/live_system.hpp"
#include "runtime/engine/partition.hpp"
#include "runtime/engine/worker_pool.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/logger.hpp>
#include <caf/scoped_actor.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <unordered_map>

namespace kb {

namespace {

/// The heap a node_init's own buffers hold (by capacity): a node built from
/// it keeps or frees them while it is measured (run_options::measure_nodes).
uint64_t heap_bytes(const node_init& in) {
  const uint64_t name = in.name.capacity() > std::string().capacity() ? in.name.capacity() + 1 : 0;
  return name + in.port_links.capacity() * sizeof(uint32_t) +
         in.out_links.capacity() * sizeof(link_spec_rt) +
         in.out_runs.capacity() * sizeof(link_run) + in.in_links.capacity() * sizeof(in_link_info);
}

} // namespace

std::optional<delivery_mode> parse_delivery(std::string_view s) {
  if (s == "direct")
    return delivery_mode::direct;
  if (s == "mailbox")
    return delivery_mode::mailbox;
  return std::nullopt;
}

const char* to_string(delivery_mode d) {
  return d == delivery_mode::direct ? "direct" : "mailbox";
}

run_result simulation::run(const run_options& opts) {
  if (ran_)
    throw std::logic_error("a simulation runs once (its links are handed to its nodes)");
  ran_ = true;
  const uint32_t rank = opts.cluster.rank;
  const uint32_t ranks = std::max<uint32_t>(1, opts.cluster.ranks);
  // Every node's name by id, shared by the nodes (a link's end is named
  // from it, not by a copy per link), and its entry; the ids by name: one
  // hash lookup per link end, not a search of the map. A node known by id
  // only (add_elsewhere) has no name: no link here names it.
  ordered_nodes order = ordered();
  const auto all_names = std::make_shared<const std::vector<std::string>>(std::move(order.names));
  const std::vector<std::string>& names = *all_names;
  const std::vector<const node_entry*>& entries = order.entries;
  const size_t n = names.size();
  std::unordered_map<std::string_view, node_id> ids;
  ids.reserve(nodes_.size());
  for (node_id i = 0; i < n; ++i)
    if (!names[i].empty())
      ids.emplace(names[i], i);
  const link_ends ends = resolve_links(ids);

  // Process of each node, then runs of whole groups of each process's
  // nodes form its shards (partition.hpp).
  std::vector<uint32_t> proc(n, 0);
  if (partition_)
    for (node_id i = 0; i < n; ++i)
      proc[i] = std::min(partition_(names[i], entries[i]->place, ranks), ranks - 1);
  const size_t lanes = opts.exact_shards ? opts.threads : shard_lanes(opts.threads, ranks, opts.cluster.one_host);
  shard_plan plan =
    plan_shards(names, proc, ranks,
                grouping_ ? std::function<std::string(uint32_t)>([&](uint32_t i) {
                  return grouping_(names[i], entries[i]->place);
                })
                          : nullptr,
                opts.exact_shards ? opts.shards : shards_to_run(opts.shards, lanes), lanes,
                opts.end.is_infinite());
  const uint32_t per = plan.per_process;
  const uint32_t shards = ranks * per;
  auto local_shard = [&](uint32_t s) { return s / per == rank; };
  // What the process's shards read by node id, once for all of them.
  auto tables = std::make_shared<shard_tables>();
  tables->owner = std::move(plan.owner);
  const std::vector<uint32_t>& owner = tables->owner;

  // Only this process's nodes get their inits filled (a split run's other
  // nodes are known here by id, owner and the links' latencies alone).
  std::vector<char> mine(n);
  for (node_id i = 0; i < n; ++i)
    mine[i] = local_shard(owner[i]) ? 1 : 0;
  std::vector<node_init> inits(n);
  for (node_id i = 0; i < n; ++i) {
    inits[i].id = i;
    if (!mine[i])
      continue;
    if (!entries[i]->factory)
      throw std::logic_error(fmt::format("node {} was described as another process's, but "
                                         "the partition puts it in this one (rank {})",
                                         names[i].empty() ? fmt::format("#{}", i)
                                                          : fmt::format("'{}'", names[i]),
                                         rank));
    inits[i].name = names[i];
    inits[i].names = all_names;
    inits[i].place = entries[i]->place;
  }
  // Split runs on one host: peer batches through shared memory (rank 0
  // makes the segment, the others map it before they say hello).
  auto ring_slot = std::make_shared<peer_rings_slot>();
  ring_slot->rank = rank;
  ring_slot->per_process = per;
  if (ranks > 1 && rank == 0 && peer_rings_enabled())
    if ((ring_slot->rings = peer_rings::create(shards)))
      ring_slot->rings->join(0);
  std::vector<hub_init> his(shards);
  for (uint32_t s = 0; s < shards; ++s) {
    his[s].shard = s;
    his[s].rings = ring_slot;
    his[s].shards = shards;
    his[s].lookahead = SimTime::infinity();
    his[s].cut_lookahead.assign(shards, SimTime::infinity());
    his[s].cut_in.assign(shards, SimTime::infinity());
  }
  tables->local_number.assign(n, no_node);
  {
    std::vector<uint32_t> count(shards, 0);
    for (node_id i = 0; i < n; ++i)
      if (local_shard(owner[i])) {
        tables->local_number[i] = count[owner[i]]++;
        his[owner[i]].ids.push_back(i);
      }
  }
  // Each node's links counted first: its vectors are made once.
  const std::vector<node_id>& link_src = ends.src;
  const std::vector<node_id>& link_dst = ends.dst;
  {
    std::vector<uint32_t> outs(n, 0), ins(n, 0);
    for (size_t k = 0; k < links_.size(); ++k) {
      ++outs[link_src[k]];
      ++ins[link_dst[k]];
    }
    for (node_id i = 0; i < n; ++i) {
      if (!mine[i])
        continue;
      inits[i].out_links.reserve(outs[i]);
      inits[i].in_links.reserve(ins[i]);
    }
  }
  std::vector<uint32_t> out_count(n, 0); // a link's index among its source's
  for (size_t k = 0; k < links_.size(); ++k) {
    link_spec_rt l = links_[k];
    l.src = link_src[k];
    l.dst = link_dst[k];
    const uint32_t idx = out_count[l.src]++;
    if (mine[l.src])
      inits[l.src].out_links.push_back(l);
    if (mine[l.dst])
      inits[l.dst].in_links.push_back({l.src, idx, l.latency, l.depth > 0});
    hub_init& hi = his[owner[l.src]];
    hi.lookahead = std::min(hi.lookahead, l.latency);
    if (owner[l.dst] != owner[l.src]) {
      hi.cut_lookahead[owner[l.dst]] =
        std::min(hi.cut_lookahead[owner[l.dst]], l.latency);
      SimTime& in = his[owner[l.dst]].cut_in[owner[l.src]];
      in = std::min(in, l.latency);
    }
  }
  // Each declared port's out link, found by the name of its end once here
  // (by the process that builds the node).
  for (node_id i = 0; i < n; ++i) {
    if (!mine[i])
      continue;
    for (const std::string& to : entries[i]->ports) {
      const auto& outs = inits[i].out_links;
      const auto it = std::find_if(outs.begin(), outs.end(),
                                   [&](const link_spec_rt& l) { return names[l.dst] == to; });
      if (it == outs.end())
        throw std::invalid_argument(fmt::format("{}: a port has no link (to {})", names[i], to));
      inits[i].port_links.push_back(static_cast<uint32_t>(it - outs.begin()));
    }
  }

  for (const auto& c : classes_) {
    std::vector<node_id> ms;
    ms.reserve(c.members.size());
    for (const auto& m : c.members)
      ms.push_back(ids.find(m)->second); // checked by resolve_links
    std::sort(ms.begin(), ms.end());
    ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
    if (ms.size() < 2)
      continue;
    // Blocks of consecutive ids: every member gets one run per block (split
    // around itself), so PHOLD's contiguous LPs get two runs each.
    std::vector<link_run> blocks;
    for (node_id m : ms)
      if (!blocks.empty() && blocks.back().first_dst + blocks.back().count == m)
        ++blocks.back().count;
      else
        blocks.push_back({m, 1, c.latency});
    std::vector<char> has_member(shards, 0);
    for (node_id m : ms) {
      has_member[owner[m]] = 1;
      his[owner[m]].lookahead = std::min(his[owner[m]].lookahead, c.latency);
      if (!mine[m])
        continue;
      auto& runs = inits[m].out_runs;
      for (const auto& b : blocks) {
        if (m < b.first_dst || m >= b.first_dst + b.count) {
          runs.push_back(b);
          continue;
        }
        if (m > b.first_dst)
          runs.push_back({b.first_dst, m - b.first_dst, c.latency});
        if (m + 1 < b.first_dst + b.count)
          runs.push_back({m + 1, b.first_dst + b.count - m - 1, c.latency});
      }
    }
    for (uint32_t a = 0; a < shards; ++a)
      for (uint32_t b = 0; b < shards; ++b)
        if (a != b && has_member[a] && has_member[b]) {
          his[a].cut_lookahead[b] = std::min(his[a].cut_lookahead[b], c.latency);
          his[b].cut_in[a] = std::min(his[b].cut_in[a], c.latency);
        }
  }

  // The links live in the nodes' inits now. The staging copies go before the
  // nodes are built, which then reuse their memory (on the 16,384-PE
  // machine about 4 KB a PE of the peak; issue 31): a simulation runs once.
  std::vector<link_spec_rt>().swap(links_);
  std::vector<std::pair<std::string, std::string>>().swap(link_names_);
  std::vector<link_class>().swap(classes_);
  decltype(ids)().swap(ids);

  const bool direct = opts.delivery == delivery_mode::direct;
  auto mark = [&](const char* phase) {
    if (opts.phases)
      opts.phases->mark(phase);
  };
  mark("plan the shards");
  if (opts.before_build) {
    opts.before_build();
    mark("wait for the routes");
  }
  // What lives as long as the actors, dropped here or by opts.teardown.
  auto live = std::make_shared<live_system>();
  caf::actor_system_config& cfg = live->cfg;
  // Direct delivery runs a shard's nodes inside its hub: the hubs are all
  // the work, so workers beyond them only steal hubs from each other's warm
  // cores (1,024 PEs, 4 SIP shards, 16-core machine: 16 workers 12% slower
  // than 8, 4 the fastest; issue 31). Under mailbox delivery nodes are
  // actors of their own and may use every thread.
  const size_t workers =
    direct ? std::clamp<size_t>(opts.threads, 1, per) : std::max<size_t>(1, opts.threads);
  cfg.set("scheduler.max-threads", workers);
  cfg.set("logger.verbosity", caf::atom("quiet"));
  // kernbench's own scheduler (runtime/engine/worker_pool, ADR-0006);
  // KB_CAF_POLICY=sharing or =stealing selects one of CAF's for comparison.
  const std::string pol = std::getenv("KB_CAF_POLICY") ? std::getenv("KB_CAF_POLICY") : "pool";
  if (pol == "pool")
    worker_pool::install(cfg);
  else if (pol == "sharing" || pol == "stealing")
    cfg.set("scheduler.policy", caf::atom_from_string(pol));
  else
    throw std::invalid_argument("KB_CAF_POLICY must be pool, sharing or stealing, not '" + pol + "'");
  cfg.add_message_types<caf::id_block::kernbench>();
  if (ranks > 1)
    cfg.load<caf::io::middleman>();
  caf::actor_system& sys = live->sys.emplace(cfg);

  // Build and spawn the local nodes (every kind's constructor runs here:
  // ~30 ms on 1,024 PEs). With several threads, each builder takes whole
  // shards, so one thread allocates a shard's nodes; a failure is reported
  // as a sequential build would, the node with the lowest id first.
  const uint32_t first_local = rank * per;
  // Measured nodes are built one at a time: the heap is the process's.
  const size_t builders = opts.measure_nodes ? 1 : std::clamp<size_t>(opts.threads, 1, per);
  live->first_local = first_local;
  live->nodes.resize(builders);
  tables->nodes.resize(n);
  if (direct)
    tables->direct.resize(n, nullptr);
  std::vector<caf::actor> by_id(n);
  std::vector<std::pair<node_id, std::exception_ptr>> failed(builders, {no_node, nullptr});
  auto build = [&](size_t k) {
    for (node_id i = 0; i < n; ++i) {
      if (!local_shard(owner[i]) || (owner[i] - first_local) % builders != k)
        continue;
      try {
        if (recorder_factory_)
          inits[i].rec = recorder_factory_(names[i]);
        inits[i].sink = sink_;
        // Measured: the heap it took while built, plus its init's buffers
        // (allocated before; it keeps or frees them meanwhile).
        const uint64_t init_bytes = opts.measure_nodes ? heap_bytes(inits[i]) : 0;
        const uint64_t before = opts.measure_nodes ? heap_in_use() : 0;
        auto a = entries[i]->factory(sys, std::move(inits[i]));
        if (opts.measure_nodes)
          if (node* m = dynamic_cast<node*>(caf::actor_cast<caf::abstract_actor*>(a))) {
            const uint64_t after = heap_in_use() + init_bytes;
            m->stats_.build_bytes = after - std::min(after, before);
          }
        tables->nodes[i] = a;
        if (direct) {
          node* d = dynamic_cast<node*>(caf::actor_cast<caf::abstract_actor*>(a));
          if (!d)
            throw std::logic_error(fmt::format("node '{}' is not a kb::node", names[i]));
          tables->direct[i] = d;
        }
        by_id[i] = std::move(a);
      } catch (...) {
        failed[k] = {i, std::current_exception()};
        return;
      }
    }
  };
  {
    std::vector<std::thread> helpers;
    for (size_t k = 1; k < builders; ++k)
      helpers.emplace_back(build, k);
    build(0);
    for (auto& t : helpers)
      t.join();
  }
  for (node_id i = 0; i < n; ++i)
    if (by_id[i])
      live->nodes[(owner[i] - first_local) % builders].push_back(std::move(by_id[i]));
  const auto first_failure = std::min_element(
    failed.begin(), failed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  if (first_failure->second) {
    // The nodes already running must end, or the system would wait for them.
    for (const auto& group : live->nodes)
      for (const auto& a : group)
        caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    std::rethrow_exception(first_failure->second);
  }
  std::vector<std::pair<uint32_t, caf::actor>>& hubs = live->hubs;
  const std::shared_ptr<const shard_tables> shared = std::move(tables);
  for (uint32_t s = 0; s < shards; ++s)
    if (local_shard(s)) {
      his[s].tables = shared;
      hubs.emplace_back(s, sys.spawn<hub>(std::move(his[s])));
    }
  std::optional<caf::scoped_actor> scoped; // gone before the system is
  caf::scoped_actor& self = scoped.emplace(sys);

  // Hubs first: a hub monitors its nodes, and a node that goes after its
  // hub sends it no down message to handle (12,288 of them on 1,024 PEs).
  auto shutdown = [&] {
    for (auto& [s, h] : hubs)
      self->send_exit(h, caf::exit_reason::user_shutdown);
    for (const auto& group : live->nodes)
      for (const auto& a : group)
        self->send_exit(a, caf::exit_reason::user_shutdown);
  };

  caf::actor root; // shard 0's hub
  if (rank == 0) {
    root = hubs.front().second;
    if (ranks > 1) {
      auto port = sys.middleman().publish(root, opts.cluster.port, nullptr, true);
      if (!port) {
        shutdown();
        throw std::runtime_error("cannot listen for worker processes: " +
                                 sys.render(port.error()));
      }
      if (opts.cluster.on_listening)
        opts.cluster.on_listening(*port);
    }
  } else {
    uint16_t port = opts.cluster.port;
    if (opts.cluster.await_port) {
      try {
        port = opts.cluster.await_port();
      } catch (...) {
        shutdown();
        throw;
      }
    }
    caf::expected<caf::actor> r = caf::sec::cannot_connect_to_node;
    for (int attempt = 0; attempt < 100 && !r; ++attempt) {
      r = sys.middleman().remote_actor(opts.cluster.host, port);
      if (!r)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!r) {
      shutdown();
      throw std::runtime_error(fmt::format(
        "rank {}: cannot reach rank 0 at {}:{}: {}", rank, opts.cluster.host, port,
        sys.render(r.error())));
    }
    root = *r;
    if (peer_rings_enabled()) {
      std::string advert;
      self->request(root, std::chrono::seconds(30), rings_atom_v)
        .receive([&](std::string& a) { advert = std::move(a); }, [](caf::error&) {});
      // Another host or no segment: CAF carries this process's batches.
      if ((ring_slot->rings = peer_rings::attach(advert, shards)))
        ring_slot->rings->join(rank);
    }
  }
  for (auto& [s, h] : hubs)
    if (s != 0)
      self->send(root, hello_atom_v, s, h);

  mark("build the nodes");
  // Start every local shard, then wait for all of them: shard 0 answers
  // with everything, the others once shard 0 has collected their part.
  if (opts.on_running)
    opts.on_running();
  // Tests: a process other than rank 0 asks its shards to run this late, so
  // that rank 0 runs, and may stop, before they have their run requests.
  if (const char* env = std::getenv("KB_TEST_RUN_DELAY_MS"); env && *env && rank > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(std::strtoul(env, nullptr, 10)));
  for (auto& [s, h] : hubs)
    self->send(h, run_request{opts.end});
  run_result result;
  for (size_t k = 0; k < hubs.size(); ++k) {
    self->receive(
      [&](run_result& r) {
        std::string err = result.error.empty() ? r.error : result.error;
        const bool stopped = result.stopped || r.stopped;
        if (!r.nodes.empty() || result.nodes.empty())
          result = std::move(r);
        result.error = std::move(err);
        result.stopped = stopped;
      },
      [&](caf::error& e) { result.error = sys.render(e); });
  }
  if (opts.phases)
    opts.phases->mark_event_loop(static_cast<double>(result.hub.run_wall_ns) * 1e-9,
                                 "collect the results",
                                 ranks > 1 ? static_cast<double>(result.hub.start_wait_ns) * 1e-9
                                           : 0.0);
  // Deferred: the teardown thread sends the exits while the caller writes
  // (8,300 sends on 1,024 PEs, ~10 ms); else they go now.
  if (opts.teardown)
    live->exit_on_release = true;
  else
    shutdown();
  if (result.error.empty() && opts.end.is_infinite() && !result.stopped) {
    // Quiet without an end time: every node that still holds work is part
    // of a deadlock in the modelled machine (a cyclic credit wait, a lost
    // notice), never a run that simply ended.
    std::string stuck;
    for (const auto& s : result.nodes)
      if (!s.pending.empty())
        stuck += fmt::format("\n  {}: {}", s.name, s.pending);
    if (!stuck.empty())
      result.error = "deadlock: the machine went quiet with work pending:" + stuck;
  }
  scoped.reset();
  if (opts.teardown) {
    // This thread's logger reference (CAF keeps one per thread that made or
    // ran a system) would keep the system's destructor waiting for it.
    caf::logger::set_current_actor_system(nullptr);
    opts.teardown->start([live = std::move(live)] { live->release(); });
  }
  return result;
}

} // namespace kb
