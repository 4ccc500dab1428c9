#include "runtime/kernel/tcm_pool.hpp"

#include <algorithm>

namespace kb {

tcm_pool::tcm_pool(uint64_t size, uint64_t reserved, std::function<bool(uint64_t)> done)
  : tcm_(size, reserved), done_(std::move(done)) {}

bool tcm_pool::all_done(const std::vector<uint64_t>& users) const {
  return std::all_of(users.begin(), users.end(), [this](uint64_t u) { return done_(u); });
}

std::optional<uint64_t> tcm_pool::allocate(uint64_t bytes) {
  sweep();
  return tcm_.allocate(bytes);
}

void tcm_pool::release(uint64_t offset, std::vector<uint64_t> users) {
  if (all_done(users))
    tcm_.free(offset);
  else
    deferred_.emplace_back(offset, std::move(users));
}

bool tcm_pool::sweep() {
  const size_t before = deferred_.size();
  for (auto it = deferred_.begin(); it != deferred_.end();) {
    if (all_done(it->second)) {
      tcm_.free(it->first);
      it = deferred_.erase(it);
    } else {
      ++it;
    }
  }
  return deferred_.size() < before;
}

} // namespace kb
