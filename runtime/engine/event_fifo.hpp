#pragma once
// A first-in first-out queue of events: a node's input queue, or the events a
// link holds for lack of credit. A ring over a power-of-two buffer that
// allocates nothing until the first push (std::deque allocates ~600 bytes
// when constructed, and a 1,024-PE machine builds tens of thousands of these
// queues, most of which never hold an event).

#include "runtime/engine/event.hpp"

#include <cstddef>
#include <memory>

namespace kb {

class event_fifo {
public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  void push_back(sim_event&& ev) {
    if (size_ == cap_)
      grow();
    buf_[(head_ + size_) & (cap_ - 1)] = std::move(ev);
    ++size_;
  }
  sim_event& front() { return buf_[head_]; }
  /// Drops the front event (moved from or not).
  void pop_front() {
    buf_[head_].body = message_body{}; // releases a payload left behind
    head_ = (head_ + 1) & (cap_ - 1);
    --size_;
  }

private:
  void grow() {
    const std::size_t cap = cap_ ? 2 * cap_ : 4;
    auto next = std::make_unique<sim_event[]>(cap);
    for (std::size_t i = 0; i < size_; ++i)
      next[i] = std::move(buf_[(head_ + i) & (cap_ - 1)]);
    buf_ = std::move(next);
    cap_ = cap;
    head_ = 0;
  }

  std::unique_ptr<sim_event[]> buf_;
  std::size_t cap_ = 0; ///< 0 or a power of two
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

} // namespace kb
