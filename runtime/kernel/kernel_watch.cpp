#include "runtime/kernel/kernel_watch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kb {

namespace {

struct registry {
  std::mutex m;
  std::set<const kernel_watch*> live;
};

registry& watched() {
  static registry r;
  return r;
}

} // namespace

kernel_watch::kernel_watch(std::string pe, std::string kernel)
  : pe_(std::move(pe)), kernel_(std::move(kernel)) {
  registry& r = watched();
  std::lock_guard<std::mutex> lock(r.m);
  r.live.insert(this);
}

kernel_watch::~kernel_watch() {
  registry& r = watched();
  std::lock_guard<std::mutex> lock(r.m);
  r.live.erase(this);
}

void kernel_watch::running() {
  std::lock_guard<std::mutex> lock(m_);
  state_ = state::running;
  since_ = std::chrono::steady_clock::now();
}

void kernel_watch::waiting(const std::string& why) {
  std::lock_guard<std::mutex> lock(m_);
  state_ = state::waiting;
  why_ = why;
}

void kernel_watch::returned() {
  std::lock_guard<std::mutex> lock(m_);
  state_ = state::returned;
  why_.clear();
}

std::string kernel_watch::line() const {
  std::lock_guard<std::mutex> lock(m_);
  switch (state_) {
  case state::created:
    return fmt::format("{}: kernel {} has not started", pe_, kernel_);
  case state::running: {
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - since_;
    return fmt::format("{}: kernel {} has run its own code for {:.1f} s without a tl:: call "
                       "(a loop that never loads, stores or waits?)",
                       pe_, kernel_, d.count());
  }
  case state::waiting:
    return fmt::format("{}: kernel {} {}", pe_, kernel_,
                       why_.empty() ? std::string("is suspended") : why_);
  case state::returned:
    break;
  }
  return {};
}

bool kernel_watch::any_running() {
  registry& r = watched();
  std::lock_guard<std::mutex> lock(r.m);
  return std::any_of(r.live.begin(), r.live.end(), [](const kernel_watch* w) {
    std::lock_guard<std::mutex> own(w->m_);
    return w->state_ == state::running;
  });
}

std::vector<std::string> kernel_watch::report() {
  std::vector<std::pair<std::string, std::string>> rows;
  {
    registry& r = watched();
    std::lock_guard<std::mutex> lock(r.m);
    for (const kernel_watch* w : r.live)
      if (std::string l = w->line(); !l.empty())
        rows.emplace_back(w->pe_, std::move(l));
  }
  std::sort(rows.begin(), rows.end());
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (auto& [pe, l] : rows)
    out.push_back(std::move(l));
  return out;
}

} // namespace kb
