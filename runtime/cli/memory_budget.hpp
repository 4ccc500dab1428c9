#pragma once
// The memory a run may plan to use, and the up-front refusal of work whose
// estimate exceeds it (instead of growing until the kernel kills the run).

#include <cstdint>
#include <string>

namespace kb {

struct memory_budget {
  uint64_t bytes = 0;
  /// Where the figure comes from, for messages.
  std::string source;
};

/// KB_MEMORY_BUDGET_MB if set (a positive integer), else 3/4 of the
/// physical memory.
memory_budget current_memory_budget();

/// "1.5 GiB", "12 MiB", "300 B".
std::string format_bytes(uint64_t bytes);

/// Throws std::invalid_argument "<what> needs about <estimate> of memory,
/// more than the budget of <budget> (<source>)" if `estimate` is over it.
void check_memory(const std::string& what, uint64_t estimate);

/// a * b, held at UINT64_MAX instead of wrapping (for estimates).
uint64_t mul_sat(uint64_t a, uint64_t b);
uint64_t add_sat(uint64_t a, uint64_t b);

} // namespace kb
