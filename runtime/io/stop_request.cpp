#include "runtime/io/stop_request.hpp"

#include <atomic>
#include <csignal>

namespace kb::stop_request {

namespace {

std::atomic<int> recorded{0};
std::atomic<int> scopes{0};

} // namespace

int signal() { return recorded.load(std::memory_order_relaxed); }

bool request(int sig) {
  int none = 0;
  return recorded.compare_exchange_strong(none, sig);
}

bool is_armed() { return scopes.load(std::memory_order_acquire) > 0; }

void reset() { recorded.store(0); }

const char* name_of(int sig) {
  switch (sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGHUP:
    return "SIGHUP";
  default:
    return "a signal";
  }
}

armed::armed() { scopes.fetch_add(1, std::memory_order_acq_rel); }
armed::~armed() { scopes.fetch_sub(1, std::memory_order_acq_rel); }

} // namespace kb::stop_request
