#include "runtime/engine/shard_loop.hpp"

#include "runtime/engine/node.hpp"
#include "runtime/engine/stall_watchdog.hpp"
#include "runtime/exception_text.hpp"

#include <fmt/format.h>

#include <exception>

namespace kb {

shard_loop::shard_loop(uint32_t shard, std::shared_ptr<const shard_tables> tables,
                       const std::vector<node_id>& ids,
                       std::vector<std::vector<sim_event>>& peer_out)
  : shard_(shard), tables_(std::move(tables)), local_(tables_->local_number),
    owner_(tables_->owner), peer_out_(peer_out) {
  nodes_.reserve(ids.size());
  for (node_id id : ids) {
    if (id >= tables_->direct.size() || !tables_->direct[id] || owner_[id] != shard_ ||
        local_[id] != nodes_.size())
      throw std::logic_error(fmt::format("shard {}: node id {} is not its node number {}", shard_,
                                         id, nodes_.size()));
    nodes_.push_back(tables_->direct[id]);
  }
  heap_ = node_heap(nodes_.size());
  keys_.resize(nodes_.size());
}

namespace {

/// Inside a catch block: what node `n` threw at `t` (any thrown value).
std::string failure(const node& n, SimTime t) {
  return fmt::format("{} at t={} ps: {}", n.name(), t.ps(), current_exception_text());
}

} // namespace

void shard_loop::summarize(std::vector<node_summary>& out, std::string& error) {
  out.reserve(out.size() + nodes_.size());
  for (node* n : nodes_) {
    try {
      out.push_back(n->summarize());
    } catch (...) {
      if (error.empty())
        error = fmt::format("collecting node summaries failed: {}: {}", n->name(), current_exception_text());
    }
  }
}

std::string shard_loop::start() {
  for (node* n : nodes_) {
    lookahead_ = std::min(lookahead_, n->min_link_latency());
    n->attach_loop(this);
    note_progress();
    try {
      n->direct_start();
    } catch (...) {
      return failure(*n, SimTime::zero());
    }
  }
  return {};
}

size_t shard_loop::run(SimTime until, size_t budget, std::string& error) {
  size_t handled = 0;
  horizon_ = until;
  while (handled < budget && !heap_.empty() && heap_.top_time() < horizon_) {
    current_ = heap_.top();
    node* n = nodes_[current_];
    key_heap& q = keys_[current_];
    // The node stays the heap's top while it runs (its key there is that of
    // its first event): all it sends or sets has a key above that event's.
    // It runs on while its next event is earlier than anything another node
    // of the shard could still send it (ahead of the shard's other events:
    // it sees the same events in the same order).
    SimTime at;
    try {
      do {
        sim_event ev = slab_.take(q.pop());
        if (!q.empty())
          slab_.prefetch(q.top_slot());
        at = ev.t;
        last_ = std::max(last_, at);
        ++handled;
        n->direct_handle(ev);
      } while (handled < budget && !q.empty() && q.top_time() < horizon_ &&
               q.top_time() < heap_.second_time() + lookahead_);
    } catch (...) {
      error = failure(*n, at);
      requeue_top();
      break;
    }
    requeue_top();
  }
  current_ = no_node;
  note_progress(handled);
  return handled;
}

void shard_loop::requeue_top() {
  const key_heap& q = keys_[current_];
  if (q.empty())
    heap_.pop_top();
  else
    heap_.replace_top(q.top_key());
  // Most likely the next to run: start fetching its node and first event.
  if (!heap_.empty()) {
    const uint32_t next = heap_.top();
    __builtin_prefetch(nodes_[next]);
    slab_.prefetch(keys_[next].top_slot());
  }
}

void shard_loop::enqueue(sim_event&& ev) {
  const uint32_t d = local_[ev.dst];
  const event_key k = ev.key();
  const bool first = keys_[d].push(k, slab_.put(std::move(ev)));
  if (!heap_.contains(d))
    heap_.insert(d, k);
  else if (first && d != current_)
    heap_.lower(d, k);
}

void shard_loop::deliver(sim_event&& ev) {
  const uint32_t s = ev.dst < owner_.size() ? owner_[ev.dst] : shard_;
  if (s == shard_ && ev.dst < local_.size())
    enqueue(std::move(ev));
  else if (s != shard_) {
    if (s < reply_.size())
      horizon_ = std::min(horizon_, ev.t + reply_[s]);
    peer_out_[s].push_back(std::move(ev));
  }
  else
    throw std::logic_error(fmt::format("message to unknown node id {}", ev.dst));
}

} // namespace kb
