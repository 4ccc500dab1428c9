#include "runtime/data/executor.hpp"

#include "runtime/data/op_compute.hpp"
#include "runtime/data/oplog_stream.hpp"

#include <caf/all.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <deque>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

// -- messages of the replay group (local only; their own type id block) --------

namespace kb::detail {

/// Coordinator -> worker: run these ops (indices into the window), in order.
struct replay_batch {
  std::vector<uint32_t> ops;
};

/// Worker -> coordinator: the batch is done (or stopped at a failing op).
struct batch_done {
  uint64_t flops = 0;
  std::string error; ///< empty on success
};

/// Coordinator -> caller: the window is done.
struct replay_result {
  uint64_t batches = 0;
  uint64_t flops = 0;
  std::string error;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replay_batch& x) {
  return f(caf::meta::type_name("kb.replay_batch"), x.ops);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, batch_done& x) {
  return f(caf::meta::type_name("kb.batch_done"), x.flops, x.error);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, replay_result& x) {
  return f(caf::meta::type_name("kb.replay_result"), x.batches, x.flops, x.error);
}

} // namespace kb::detail

// Well clear of the engine's block (which starts at first_custom_type_id), so
// both may one day live in one program.
CAF_BEGIN_TYPE_ID_BLOCK(kb_data, caf::first_custom_type_id + 100)
  CAF_ADD_TYPE_ID(kb_data, (kb::detail::replay_batch))
  CAF_ADD_TYPE_ID(kb_data, (kb::detail::batch_done))
  CAF_ADD_TYPE_ID(kb_data, (kb::detail::replay_result))
  CAF_ADD_ATOM(kb_data, kb::detail, replay_atom, "replay")
CAF_END_TYPE_ID_BLOCK(kb_data)

namespace kb {

namespace {

using detail::batch_done;
using detail::replay_batch;
using detail::replay_result;

/// What every actor of one window reads. The workers write `image`: see
/// touch_outputs() for why that is free of data races.
struct window_context {
  const std::vector<op_record>* ops;
  const dependency_graph* graph;
  memory_image* image;
  uint32_t max_batch;
  const replay_options* options;

  uint64_t run(const op_record& r, compute_scratch& s) const {
    return options->kernel ? options->kernel(r, *image, s) : execute(r, *image, s);
  }
};

std::string failure(const op_record& r, const std::string& what) {
  return fmt::format("phase 2: {} failed: {}", describe(r), what);
}

// -- worker --------------------------------------------------------------------

struct worker_state {
  compute_scratch scratch; // reused from batch to batch
  static inline const char* name = "kb.replay_worker";
};

caf::behavior replay_worker(caf::stateful_actor<worker_state>* self, const window_context* ctx) {
  return {
    [self, ctx](replay_batch& b) -> batch_done {
      batch_done d;
      for (uint32_t i : b.ops) {
        const op_record& r = (*ctx->ops)[i];
        try {
          d.flops += ctx->run(r, self->state.scratch);
        } catch (const std::exception& e) {
          d.error = failure(r, e.what());
          break;
        }
      }
      return d;
    },
  };
}

// -- coordinator -------------------------------------------------------------------

/// Ops that may share a batch: same name, kind, parameters, shapes, dtypes.
/// Each op's batch class is found once, before the replay starts; the
/// replay itself keys its ready queues by that integer.
struct same_batch {
  static bool same_shape(const tensor_view& a, const tensor_view& b) {
    return a.rows == b.rows && a.cols == b.cols && a.type == b.type;
  }
  bool operator()(const op_record* a, const op_record* b) const {
    return a->kind == b->kind && a->fn == b->fn && a->accumulate == b->accumulate &&
           a->transpose_a == b->transpose_a && a->transpose_b == b->transpose_b &&
           std::bit_cast<uint64_t>(a->scalar) == std::bit_cast<uint64_t>(b->scalar) &&
           a->axis == b->axis && same_shape(a->out, b->out) &&
           std::equal(a->inputs.begin(), a->inputs.end(), b->inputs.begin(), b->inputs.end(),
                      same_shape) &&
           a->op_name == b->op_name;
  }
};

struct batch_hash {
  size_t operator()(const op_record* r) const {
    uint64_t h = std::hash<std::string_view>{}(r->op_name);
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001b3ull; };
    mix(uint64_t{static_cast<uint8_t>(r->kind)} << 8 | static_cast<uint8_t>(r->fn));
    mix(uint64_t{r->accumulate} << 2 | uint64_t{r->transpose_a} << 1 | r->transpose_b);
    mix(std::bit_cast<uint64_t>(r->scalar));
    mix(static_cast<uint64_t>(r->axis));
    for (const auto& v : r->inputs)
      mix(uint64_t{v.rows} << 32 ^ uint64_t{v.cols} << 8 ^ static_cast<uint8_t>(v.type));
    mix(uint64_t{r->out.rows} << 32 ^ uint64_t{r->out.cols} << 8 ^
        static_cast<uint8_t>(r->out.type));
    return static_cast<size_t>(h);
  }
};

/// Each op's batch class, dense from 0 in order of first appearance.
std::vector<uint32_t> batch_classes(const std::vector<op_record>& ops, uint32_t& count) {
  std::unordered_map<const op_record*, uint32_t, batch_hash, same_batch> ids;
  std::vector<uint32_t> cls(ops.size());
  for (size_t i = 0; i < ops.size(); ++i)
    cls[i] = ids.try_emplace(&ops[i], static_cast<uint32_t>(ids.size())).first->second;
  count = static_cast<uint32_t>(ids.size());
  return cls;
}

struct coordinator_state {
  const window_context* ctx = nullptr;
  std::vector<caf::actor> workers;
  std::vector<bool> busy;
  std::vector<std::vector<uint32_t>> running;      // the batch each worker runs
  std::vector<uint32_t> waiting;                   // unfinished predecessors per op
  std::vector<uint32_t> batch_of;                  // each op's batch class
  std::vector<std::deque<uint32_t>> ready;         // by batch class
  std::deque<uint32_t> keys;                       // ready classes, oldest first
  uint64_t finished = 0, batches = 0, flops = 0;
  unsigned in_flight = 0;
  std::string error;
  caf::response_promise promise;
  static inline const char* name = "kb.replay_coordinator";
};

using coordinator_actor = caf::stateful_actor<coordinator_state>;

void make_ready(coordinator_state& st, uint32_t op) {
  const uint32_t key = st.batch_of[op];
  auto& q = st.ready[key];
  if (q.empty())
    st.keys.push_back(key);
  q.push_back(op);
}

void finish_if_done(coordinator_actor* self) {
  auto& st = self->state;
  const bool all_done = st.finished == st.ctx->ops->size();
  if (st.in_flight != 0 || (!all_done && st.error.empty()))
    return;
  if (st.error.empty() && !all_done) // nothing in flight, nothing ready: cannot happen
    st.error = "phase 2: replay stalled (a dependency cycle the graph check missed)";
  if (st.promise.pending())
    st.promise.deliver(replay_result{st.batches, st.flops, st.error});
}

void dispatch(coordinator_actor* self);

void on_done(coordinator_actor* self, size_t w, batch_done& d) {
  auto& st = self->state;
  const std::vector<uint32_t>& ops = st.running[w];
  st.busy[w] = false;
  --st.in_flight;
  st.flops += d.flops;
  if (!d.error.empty()) {
    if (st.error.empty())
      st.error = d.error;
  } else {
    const auto& g = *st.ctx->graph;
    for (uint32_t op : ops) {
      ++st.finished;
      for (uint32_t s : g.succs(op))
        if (--st.waiting[s] == 0)
          make_ready(st, s);
    }
  }
  dispatch(self);
  finish_if_done(self);
}

void dispatch(coordinator_actor* self) {
  auto& st = self->state;
  if (!st.error.empty())
    return; // stop: let the ops in flight finish
  // A group of ready ops is cut into one share per worker (busy ones too,
  // so a burst is not all handed to whoever happens to be idle), at most
  // max_batch ops each.
  std::optional<uint32_t> key;
  size_t share = 0;
  for (size_t w = 0; w < st.workers.size() && !st.keys.empty(); ++w) {
    if (st.busy[w])
      continue;
    auto& q = st.ready[st.keys.front()];
    if (key != st.keys.front()) {
      key = st.keys.front();
      share = (q.size() + st.workers.size() - 1) / st.workers.size();
    }
    const size_t n = std::clamp<size_t>(share, 1, std::min<size_t>(q.size(), st.ctx->max_batch));
    auto& ops = st.running[w];
    ops.assign(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(n));
    q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(n));
    if (q.empty()) {
      st.keys.pop_front();
      key.reset();
    }
    st.busy[w] = true;
    ++st.in_flight;
    ++st.batches;
    self->request(st.workers[w], caf::infinite, replay_batch{ops})
      .then([self, w](batch_done& d) { on_done(self, w, d); },
            [self, w](caf::error& e) {
              batch_done d;
              d.error = fmt::format("phase 2: a replay worker failed running {} ({})",
                                    describe((*self->state.ctx->ops)[self->state.running[w].front()]),
                                    self->system().render(e));
              on_done(self, w, d);
            });
  }
}

caf::behavior replay_coordinator(coordinator_actor* self, const window_context* ctx,
                                 std::vector<caf::actor> workers) {
  auto& st = self->state;
  st.ctx = ctx;
  st.workers = std::move(workers);
  st.busy.assign(st.workers.size(), false);
  st.running.resize(st.workers.size());
  uint32_t classes = 0;
  st.batch_of = batch_classes(*ctx->ops, classes);
  st.ready.resize(classes);
  const auto& g = *ctx->graph;
  st.waiting.resize(g.size());
  for (uint32_t i = 0; i < g.size(); ++i)
    st.waiting[i] = static_cast<uint32_t>(g.preds(i).size());
  return {
    [self](detail::replay_atom) -> caf::result<replay_result> {
      auto& st = self->state;
      st.promise = self->make_response_promise<replay_result>();
      for (uint32_t i : st.ctx->graph->order())
        if (st.waiting[i] == 0)
          make_ready(st, i);
      dispatch(self);
      finish_if_done(self);
      return st.promise;
    },
  };
}

// -- one window ---------------------------------------------------------------------

/// Creates every page an op writes, before any worker starts. memory_image
/// keeps pages in a std::map: inserting while another thread reads or writes
/// is a data race, but with every written page present, workers only look
/// pages up (concurrent lookups are safe) and write bytes inside them. Two
/// ops that run at the same time touch disjoint bytes (else one depends on
/// the other), and the coordinator's messages order each op after the ops it
/// depends on (CAF mailboxes synchronise), so no byte is ever raced on. Pages
/// only read and never written are not created: lookups of absent pages
/// return zeros without inserting.
void touch_outputs(const std::vector<op_record>& ops, memory_image& image) {
  for (const auto& r : ops)
    for (const auto& range : row_ranges(r.out))
      image.touch(range.first, range.last - range.first);
}

unsigned worker_count(const replay_options& o) {
  if (o.workers != 0)
    return o.workers;
  return std::max(1u, std::thread::hardware_concurrency());
}

void check_records(const std::vector<op_record>& ops) {
  for (const auto& r : ops)
    if (auto e = check(r); !e.empty())
      throw std::runtime_error(fmt::format("phase 2: {} is malformed: {}", describe(r), e));
}

/// Replays one window of ops whose graph is built; adds to `stats`.
void run_window(const std::vector<op_record>& ops, const dependency_graph& g, memory_image& image,
                const replay_options& o, replay_stats& stats) {
  stats.ops += ops.size();
  if (o.after_each) { // debug mode: sequential, log order, this thread
    compute_scratch scratch;
    for (uint32_t i : g.order()) {
      const op_record& r = ops[i];
      try {
        stats.flops += o.kernel ? o.kernel(r, image, scratch) : execute(r, image, scratch);
      } catch (const std::exception& e) {
        throw std::runtime_error(failure(r, e.what()));
      }
      ++stats.batches;
      o.after_each(r, image);
    }
    return;
  }
  if (ops.empty())
    return;
  touch_outputs(ops, image);
  const window_context ctx{&ops, &g, &image, std::max(1u, o.max_batch), &o};

  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 1); // the coordinator; workers have their own threads
  // Work sharing waits on a condition variable; work stealing would poll
  // (spin) while the coordinator waits, taking a core from the workers.
  cfg.set("scheduler.policy", caf::atom("sharing"));
  cfg.set("logger.verbosity", caf::atom("quiet"));
  cfg.add_message_types<caf::id_block::kb_data>();
  caf::actor_system sys{cfg};
  std::vector<caf::actor> workers;
  for (unsigned i = 0; i < worker_count(o); ++i)
    workers.push_back(sys.spawn<caf::detached>(replay_worker, &ctx));
  auto coordinator = sys.spawn(replay_coordinator, &ctx, workers);
  replay_result result;
  {
    caf::scoped_actor self{sys};
    self->request(coordinator, caf::infinite, detail::replay_atom_v)
      .receive([&](replay_result& r) { result = std::move(r); },
               [&](caf::error& e) {
                 result.error = "phase 2: the replay coordinator failed: " + sys.render(e);
               });
    self->send_exit(coordinator, caf::exit_reason::user_shutdown);
    for (auto& w : workers)
      self->send_exit(w, caf::exit_reason::user_shutdown);
  }
  stats.batches += result.batches;
  stats.flops += result.flops;
  if (!result.error.empty())
    throw std::runtime_error(result.error);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

replay_stats replay(const std::vector<op_record>& ops, memory_image& image,
                    const replay_options& options) {
  const auto t0 = std::chrono::steady_clock::now();
  replay_stats stats;
  check_records(ops);
  const auto g = dependency_graph::build(ops, options.dependencies);
  run_window(ops, g, image, options, stats);
  stats.seconds = since(t0);
  return stats;
}

replay_stats replay(const std::filesystem::path& oplog, memory_image& image,
                    const replay_options& options) {
  const auto t0 = std::chrono::steady_clock::now();
  replay_stats stats;
  oplog_reader in(oplog.string());
  const size_t window = std::max<size_t>(1, options.window);
  std::vector<uint64_t> earlier_ids; // sorted
  bool have_earlier = false;
  uint64_t earlier_t_max = 0;
  std::vector<op_record> ops;
  op_record r;
  for (;;) {
    ops.clear();
    while (ops.size() < window && in.next(r))
      ops.push_back(std::move(r));
    if (ops.empty())
      break;
    check_records(ops);
    uint64_t t_max = 0;
    for (auto& op : ops) {
      if (have_earlier && op.t_start_ps < earlier_t_max)
        throw std::runtime_error(fmt::format(
          "{}: {} starts at {} ps, before ops of an earlier window of {} records (up to {} "
          "ps): the log is out of t_start order by more than the window; raise "
          "replay_options::window",
          oplog.string(), describe(op), op.t_start_ps, window, earlier_t_max));
      t_max = std::max(t_max, op.t_start_ps);
      std::erase_if(op.deps, [&](uint64_t id) { // done in an earlier window
        return std::binary_search(earlier_ids.begin(), earlier_ids.end(), id);
      });
      if (std::binary_search(earlier_ids.begin(), earlier_ids.end(), op.id))
        throw std::runtime_error(fmt::format("{}: two ops of the log have id {}", oplog.string(),
                                             op.id));
    }
    const auto g = dependency_graph::build(ops, options.dependencies);
    run_window(ops, g, image, options, stats);
    const size_t old = earlier_ids.size();
    for (const auto& op : ops)
      earlier_ids.push_back(op.id);
    std::sort(earlier_ids.begin() + static_cast<std::ptrdiff_t>(old), earlier_ids.end());
    std::inplace_merge(earlier_ids.begin(), earlier_ids.begin() + static_cast<std::ptrdiff_t>(old),
                       earlier_ids.end());
    earlier_t_max = std::max(earlier_t_max, t_max);
    have_earlier = true;
  }
  stats.seconds = since(t0);
  return stats;
}

} // namespace kb
