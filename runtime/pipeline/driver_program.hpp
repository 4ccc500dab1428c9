#pragma once
// The built-in driver a PE_CPU runs when no kernel is given: it issues its
// commands back to back (asynchronously, all at time 0 in order) and then
// waits until every one is done.

#include "runtime/pipeline/command.hpp"

#include <vector>

namespace kb {

struct driver_program {
  std::vector<pe_command> commands;
};

} // namespace kb
