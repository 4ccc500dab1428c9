#include "actors/pe_scheduler.hpp"

#include "actors/pe_tcm.hpp"

#include "runtime/pipeline/stage_ops.hpp"

#include "runtime/pipeline/command.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"
#include "runtime/pipeline/token.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

namespace {

constexpr uint16_t feed_timer = kind_of(pipe_kind::timer);

} // namespace

const impl_decl<pe_scheduler::config>& pe_scheduler::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "pe_scheduler",
    "plans composite commands (seed ADR-0042) and feeds the tiles of each command whose "
    "dependencies are done as soon as its first stage's queue is free (oldest first, never "
    "interleaving two commands in one queue); completes each command exactly once; predicts "
    "each command's steady-state II by modulo scheduling one body of its tiles",
    {choice(&config::modulo_feed, "feed_policy",
            "fifo: release tiles as credits allow; modulo: release one steady-state body (the K "
            "tiles of an output tile) per scheduled II",
            {{"fifo", false}, {"modulo", true}})}}
      .reports(scheduler_stats::all);
  return d;
}

pe_scheduler::config pe_scheduler::read_config(const param_reader& p,
                                               const machine_context& ctx) {
  config c = decl().read(p);
  c.topology = ctx.topology;
  c.kinds = ctx.kinds;
  c.fabric = ctx.fabric;
  if (ctx.topology) {
    const std::string prefix = ctx.node.substr(0, ctx.node.rfind('.'));
    if (const node_spec* tcm = ctx.topology->find_node(prefix + ".pe_tcm"))
      c.tcm_reserve = pe_tcm::decl().read(tcm->params).scheduler_reserved_kib * 1024;
  }
  return c;
}

pe_scheduler::pe_scheduler(caf::actor_config& cfg, node_init init, config c)
  : node(cfg, std::move(init)), cfg_(c),
    pe_prefix_(node_name().substr(0, node_name().rfind('.'))),
    // The model is built by whichever thread predicts first: it gets copies.
    predictor_([topology = c.topology, kinds = c.kinds, fabric = c.fabric, prefix = pe_prefix_] {
      if (!topology || !kinds)
        throw std::domain_error("no topology to model");
      return std::make_unique<service_model>(*topology, *kinds, prefix, fabric);
    }, c.tcm_reserve) {
  for (size_t r = 0; r < unit_role_count; ++r)
    unit_links_[r] = find_link(pe_prefix_ + "." + std::string(unit_name(unit_role(r))));
}

void pe_scheduler::on_message(sim_event& ev) {
  switch (static_cast<pipe_kind>(ev.kind)) {
    case pipe_kind::command: on_command(ev); return;
    case pipe_kind::tile_done: on_tile_done(ev); return;
    case pipe_kind::timer:
      if (now() >= feed_timer_at_)
        feed_timer_at_ = SimTime::infinity();
      run_feeder();
      return;
    default:
      throw std::runtime_error(
        fmt::format("unexpected message kind {} from node {}", ev.kind, ev.src));
  }
}

void pe_scheduler::on_command(sim_event& ev) {
  if (ev.body.empty())
    throw std::runtime_error("command message without a body");
  auto cmd = ev.body.root<wire::PeCommand>();
  const uint64_t id = cmd.getId();
  if (commands_.count(id))
    throw std::runtime_error(fmt::format("command {} submitted twice", id));
  std::shared_ptr<const tile_source> tiles;
  try {
    tiles = command_tiles(cmd);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("command {}: {}", id, e.what()));
  }
  const uint32_t size = tiles->size();
  rows_[id].id = id;
  rows_[id].arrive_ps = now().ps();
  auto requester = find_link_to(ev.src);
  if (!requester)
    throw std::runtime_error(fmt::format("command {} from node {}, which "
                                         "has no link back",
                                         id, ev.src));
  hook_event(trace_kind::command_submitted, {0, 0, size, id, 0});
  // The steady-state body (the leading tiles of the first output tile) is
  // all the II prediction looks at.
  const uint32_t body_tiles = std::max<uint32_t>(1, tiles->body_tiles());
  SimTime modulo_ii;
  if (cfg_.modulo_feed) {
    const body_prediction p = predictor_.predict_now(*tiles, body_tiles);
    record(id, body_tiles, p);
    if (!p.schedule)
      throw std::runtime_error(fmt::format("command {}: feed_policy modulo needs the II "
                                           "prediction, which this command has not: {}",
                                           id, p.unpredicted_because));
    modulo_ii = p.schedule->ii;
  } else {
    predictor_.start(id, tiles, body_tiles);
  }
  command_state st;
  st.id = id;
  st.requester_link = *requester;
  st.done.assign(size, false);
  st.tcm.assign(cfg_.tcm_reserve ? size : 0, 0);
  st.body_tiles = body_tiles;
  commands_.emplace(id, std::move(st));

  feed f;
  f.command = id;
  for (uint64_t d : cmd.getDeps()) {
    if (d == 0 || d >= id)
      throw std::runtime_error(fmt::format(
        "command {} depends on command {}, which was not issued before it", id, d));
    f.deps.push_back(d);
  }
  f.body_tiles = body_tiles;
  f.ii = modulo_ii;
  f.tiles = std::move(tiles);
  f.size = size;
  f.composite = !cmd.isSimple();
  if (cmd.hasPayload() || cmd.hasWho()) // a kernel's load, store or compute
    f.kernel_command = std::move(ev.body);
  feeds_.push_back(std::move(f));
  run_feeder();
}

void pe_scheduler::run_feeder() {
  // Oldest first: a command takes a queue only if no earlier one holds it.
  std::vector<engine_queue> busy;
  // Composite commands keep their order among themselves: one starts once
  // every earlier one has fed all its tiles (the FIFO of seed ADR-0021 D2).
  bool composite_feeding = false;
  tcm_waiting_ = false;
  for (auto it = feeds_.begin(); it != feeds_.end();) {
    if (!it->composite || !composite_feeding)
      feed_command(*it, busy);
    if (it->composite && it->next < it->size)
      composite_feeding = true;
    it = it->next == it->size ? feeds_.erase(it) : it + 1;
  }
  if (tcm_waiting_ && !tcm_wait_since_) {
    tcm_wait_since_ = now();
  } else if (!tcm_waiting_ && tcm_wait_since_) {
    tcm_stall_ps_ += (now() - *tcm_wait_since_).ps();
    tcm_wait_since_.reset();
  }
}

void pe_scheduler::feed_command(feed& f, std::vector<engine_queue>& busy) {
  if (f.next == 0 && !f.deps.empty()) { // its data dependencies first
    std::erase_if(f.deps, [&](uint64_t d) { return d < completed_.size() && completed_[d]; });
    if (!f.deps.empty()) {
      f.held_by_deps = true;
      return; // fed again when a command completes; holds no queue
    }
  }
  while (f.next < f.size) {
    if (!f.peeked) {
      f.peeked = f.tiles->tile(static_cast<uint32_t>(f.next));
      if (f.peeked->stages.empty())
        throw std::runtime_error(fmt::format("command {}: tile {} has no stages", f.command,
                                             f.peeked->tile_id));
    }
    const tile_plan& tile = *f.peeked;
    const stage& first = tile.stages.front();
    const auto l = unit_links_[static_cast<size_t>(first.unit)];
    if (!l)
      throw std::runtime_error(fmt::format("command {}: tile {} starts on '{}.{}', which has no "
                                           "link from {}",
                                           f.command, tile.tile_id, pe_prefix_,
                                           unit_name(first.unit), node_name()));
    const engine_queue q{*l, static_cast<queue_id>(first.type), f.command};
    auto holder = std::find(busy.begin(), busy.end(), q);
    if (holder == busy.end()) {
      const auto b = std::find_if(blocked_.begin(), blocked_.end(),
                                  [&](const blocked_queue& x) { return x.at == q; });
      if (b != blocked_.end())
        holder = busy.insert(busy.end(), b->at);
    }
    if (holder != busy.end()) { // an earlier command has the queue: wait behind it
      if (!f.start && f.engine_held_by == 0)
        f.engine_held_by = holder->command;
      busy.push_back(q);
      return;
    }
    if (f.start && f.ii > SimTime::zero()) { // modulo feed: body j leaves at start + j·II
      // Saturating: a product beyond 64 bits is infinity, never a wrap.
      const auto offset = checked_mul(f.ii.ps(), f.next / f.body_tiles);
      const SimTime release = *f.start + (offset ? SimTime{*offset} : SimTime::infinity());
      if (now() < release) {
        if (release < feed_timer_at_) { // the earliest release wakes the walk
          feed_timer_at_ = release;
          schedule(release, feed_timer);
        }
        busy.push_back(q);
        return;
      }
    }
    // Room for its buffers in the scheduler's TCM (ADR-0031), or it waits
    // until a tile in flight is done; one that can never fit is an error.
    uint64_t tcm = 0;
    if (cfg_.tcm_reserve) {
      tcm = scheduler_tcm_bytes(tile);
      if (tcm > *cfg_.tcm_reserve)
        throw std::runtime_error(fmt::format(
          "command {}: tile {} needs {} B of the scheduler's TCM for its buffers, more than "
          "all of it: {} B (pe_tcm scheduler_reserved_kib = {}); use smaller tiles or "
          "reserve more",
          f.command, tile.tile_id, tcm, *cfg_.tcm_reserve, *cfg_.tcm_reserve / 1024));
      if (tcm_in_flight_ + tcm > *cfg_.tcm_reserve) {
        tcm_waiting_ = true;
        busy.push_back(q);
        return; // fed again when a tile in flight is done
      }
    }
    if (!f.start) {
      f.start = now();
      command_stat& row = rows_[f.command];
      row.start_ps = now().ps();
      if (f.held_by_deps) {
        row.held = static_cast<uint8_t>(held_why::depends);
        row.held_by = last_completed_;
      } else if (f.engine_held_by != 0) {
        row.held = static_cast<uint8_t>(held_why::engine);
        row.held_by = f.engine_held_by;
      }
    }
    if (tcm > 0) {
      tcm_in_flight_ += tcm;
      tcm_peak_ = std::max(tcm_peak_, tcm_in_flight_);
      commands_.at(f.command).tcm[tile.tile_id] = tcm;
    }
    ++f.next;
    message_body token = make_token(tile, f.command, id(),
                                    static_cast<uint32_t>(tiles_fed_ % stage_ops::slots));
    if (!f.kernel_command.empty()) { // a kernel's bytes, name and data op travel along
      auto tb = token.root_builder<wire::TileToken>();
      const auto cmd = f.kernel_command.root<wire::PeCommand>();
      if (cmd.hasPayload())
        tb.setData(cmd.getPayload());
      tb.setWho(cmd.getWho());
      if (cmd.isSimple() && cmd.getSimple().getStage().hasDataOp())
        tb.getStages()[0].setDataOp(cmd.getSimple().getStage().getDataOp());
    }
    const service_tag tag{0, static_cast<uint16_t>(first.type), tile.tile_id, f.command, 0};
    outgoing m;
    m.kind = kind_of(pipe_kind::token);
    m.queue = q.queue;
    m.arg0 = f.command;
    m.arg1 = tile.tile_id;
    m.body = std::move(token);
    ++tiles_fed_;
    f.peeked.reset();
    if (send_on(q.link, std::move(m))) {
      hook_event(trace_kind::sub_command_dispatched, tag);
    } else {
      // Held for lack of credit: it is dispatched when it leaves, and the
      // queue is this command's until then.
      blocked_.push_back({q, tag, now()});
      busy.push_back(q);
      return;
    }
  }
}

void pe_scheduler::on_unblocked(uint32_t link, queue_id queue) {
  const auto b = std::find_if(blocked_.begin(), blocked_.end(), [&](const blocked_queue& x) {
    return x.at.link == link && x.at.queue == queue;
  });
  if (b == blocked_.end())
    return;
  stall_ps_ += (now() - b->since).ps();
  hook_event(trace_kind::sub_command_dispatched, b->pending);
  blocked_.erase(b);
  run_feeder();
}

void pe_scheduler::on_tile_done(sim_event& ev) {
  const uint64_t id = ev.arg0;
  const auto tile = ev.arg1;
  auto it = commands_.find(id);
  if (it == commands_.end())
    throw std::runtime_error(
      fmt::format("tile-done for unknown command {} (tile {})", id, tile));
  command_state& st = it->second;
  if (tile >= st.done.size())
    throw std::runtime_error(
      fmt::format("command {}: tile-done for tile {}, which it does not have "
                  "({} tiles)",
                  id, tile, st.done.size()));
  if (st.done[tile])
    throw std::runtime_error(
      fmt::format("command {}: tile {} completed twice", id, tile));
  st.done[tile] = true;
  if (!ev.body.empty()) // a load's token, with the bytes it read
    st.data = std::move(ev.body);
  hook_event(trace_kind::tile_ready, {0, 0, tile, id, 0});
  if ((tile + 1) % st.body_tiles == 0)
    st.body_done.push_back(now().ps());
  const bool freed = !st.tcm.empty() && st.tcm[tile] > 0;
  if (freed) { // its buffers are free (ADR-0031)
    tcm_in_flight_ -= st.tcm[tile];
    st.tcm[tile] = 0;
  }
  if (++st.completed < st.done.size()) {
    if (freed && tcm_wait_since_)
      run_feeder(); // a tile waits for the room
    return;
  }
  hook_event(trace_kind::command_complete, {0, 0, st.done.size(), id, 0});
  outgoing m;
  m.kind = kind_of(pipe_kind::command_done);
  m.arg0 = id;
  m.arg1 = st.done.size();
  m.body = std::move(st.data); // the bytes a kernel's load read, if it was one
  send_on(st.requester_link, std::move(m));
  if (completed_.size() <= id)
    completed_.resize(id + 1, false);
  completed_[id] = true;
  last_completed_ = id;
  if (!feeds_.empty())
    run_feeder(); // a command waiting for this one may go now
  ++commands_done_;
}

void pe_scheduler::record(uint64_t id, uint32_t body_tiles, const body_prediction& p) {
  // The command table's row only (a figure per command and field cost a
  // kernel run of 12,800 commands a fifth of its wall time: issue 62).
  command_stat& row = rows_[id];
  row.body_tiles = body_tiles;
  row.predicted_ii_ps = p.schedule ? p.schedule->ii.ps() : 0;
  if (p.schedule) {
    row.has_mii = true;
    row.predicted_mii_ps = p.mii_ps;
  }
}

void pe_scheduler::on_finish() {
  for (const auto& [id, p] : predictor_.collect())
    record(id, commands_.at(id).body_tiles, p);
  // The simulated steady-state interval of each command: mean distance
  // between body completions over the second half of its bodies (the first
  // half holds the pipeline fill). Needs three bodies or more.
  for (const auto& [id, st] : commands_) {
    const auto& d = st.body_done;
    if (d.size() < 3)
      continue;
    const size_t h = d.size() / 2;
    const uint64_t interval = (d.back() - d[h]) / (d.size() - 1 - h);
    rows_[id].has_steady = true;
    rows_[id].steady_interval_ps = interval;
  }
  std::vector<command_stat> rows;
  rows.reserve(rows_.size());
  for (auto& [id, row] : rows_)
    rows.push_back(std::move(row));
  if (!rows.empty())
    add_table(std::make_shared<command_table>(std::move(rows)));
  add_figure(scheduler_stats::feeder_stall_ps, stall_ps_);
  if (tcm_stall_ps_ > 0 || tcm_wait_since_) { // the reserve held a tile back
    add_figure(scheduler_stats::tcm_peak_bytes, tcm_peak_);
    add_figure(scheduler_stats::tcm_stall_ps, tcm_stall_ps_);
  }
  add_figure(scheduler_stats::tiles_fed, tiles_fed_);
  add_figure(scheduler_stats::commands_done, commands_done_);
}

std::string pe_scheduler::pending_work() const {
  std::string out = node::pending_work();
  for (const auto& [id, st] : commands_)
    if (st.completed < st.done.size())
      out += fmt::format("{}command {}: {} of {} tiles done", out.empty() ? "" : "; ",
                       id, st.completed, st.done.size());
  for (const blocked_queue& b : blocked_)
    out += fmt::format("; command {} blocked for lack of credit on link {} queue {}",
                       b.at.command, b.at.link, b.at.queue);
  return out;
}

} // namespace kb
