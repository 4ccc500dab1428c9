#include "runtime/machine/fabric_beside.hpp"

#include <utility>

namespace kb {

fabric_beside::fabric_beside(fabric_inputs in) : map_(std::make_shared<fabric_map>()) {
  thread_ = std::thread([this, in = std::move(in)]() mutable {
    try {
      *map_ = build_fabric_map(std::move(in));
    } catch (...) {
      error_ = std::current_exception();
    }
  });
}

fabric_beside::~fabric_beside() {
  if (thread_.joinable())
    thread_.join();
}

void fabric_beside::wait() {
  if (thread_.joinable())
    thread_.join();
  if (error_)
    std::rethrow_exception(std::exchange(error_, nullptr));
}

} // namespace kb
