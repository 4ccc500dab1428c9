#include "runtime/config/detail/load_work.hpp"

namespace kb::detail {

load_work& this_thread_load_work() {
  thread_local load_work work;
  return work;
}

} // namespace kb::detail
