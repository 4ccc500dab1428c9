#include "runtime/predict/schedule_memo.hpp"

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace kb {

namespace {

struct memo {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const tile_schedule>> kept;
  std::atomic<size_t> made{0};
};

memo& the_memo() {
  static memo m;
  return m;
}

} // namespace

std::shared_ptr<const tile_schedule> memo_schedule(const std::string& key,
                                                   const std::function<tile_schedule()>& make) {
  memo& m = the_memo();
  {
    std::lock_guard lock(m.mutex);
    if (auto it = m.kept.find(key); it != m.kept.end())
      return it->second;
  }
  auto made = std::make_shared<const tile_schedule>(make());
  m.made.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(m.mutex);
  if (m.kept.size() >= schedule_memo_capacity)
    m.kept.clear();
  return m.kept.emplace(key, std::move(made)).first->second;
}

size_t schedule_memo_size() {
  memo& m = the_memo();
  std::lock_guard lock(m.mutex);
  return m.kept.size();
}

size_t schedule_memo_made() {
  return the_memo().made.load(std::memory_order_relaxed);
}

} // namespace kb
