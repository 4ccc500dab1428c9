#include "runtime/engine/shard_loop.hpp"

#include "runtime/engine/node.hpp"

#include <fmt/format.h>

#include <exception>

namespace kb {

shard_loop::shard_loop(uint32_t shard, std::vector<node*> nodes,
                       const std::vector<uint32_t>& owner,
                       std::vector<std::vector<sim_event>>& peer_out)
  : shard_(shard), nodes_(std::move(nodes)), owner_(owner), peer_out_(peer_out) {}

namespace {

std::string failure(const node& n, SimTime t, const std::exception& e) {
  return fmt::format("{} at t={} ps: {}", n.name(), t.ps(), e.what());
}

} // namespace

std::string shard_loop::start() {
  for (node* n : nodes_) {
    if (!n)
      continue;
    n->attach_loop(this);
    try {
      n->direct_start();
    } catch (const std::exception& e) {
      return failure(*n, SimTime::zero(), e);
    }
  }
  return {};
}

size_t shard_loop::run(SimTime until, size_t budget, std::string& error) {
  size_t handled = 0;
  horizon_ = until;
  while (handled < budget && !queue_.empty() && queue_.top_time() < horizon_) {
    sim_event ev = queue_.pop();
    node* n = nodes_[ev.dst];
    last_ = ev.t;
    ++handled;
    try {
      n->direct_handle(ev);
    } catch (const std::exception& e) {
      error = failure(*n, last_, e);
      break;
    }
  }
  return handled;
}

void shard_loop::deliver(sim_event&& ev) {
  const uint32_t s = ev.dst < owner_.size() ? owner_[ev.dst] : shard_;
  if (s == shard_ && ev.dst < nodes_.size() && nodes_[ev.dst])
    queue_.push(std::move(ev));
  else if (s != shard_) {
    if (s < reply_.size())
      horizon_ = std::min(horizon_, ev.t + reply_[s]);
    peer_out_[s].push_back(std::move(ev));
  }
  else
    throw std::logic_error(fmt::format("message to unknown node id {}", ev.dst));
}

} // namespace kb
