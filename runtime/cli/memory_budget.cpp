#include "runtime/cli/memory_budget.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>
#include <unistd.h>

namespace kb {

uint64_t mul_sat(uint64_t a, uint64_t b) {
  uint64_t p = 0;
  return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

uint64_t add_sat(uint64_t a, uint64_t b) {
  uint64_t s = 0;
  return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

memory_budget current_memory_budget() {
  if (const char* env = std::getenv("KB_MEMORY_BUDGET_MB"); env && *env) {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(env, &end, 10);
    if (*end != '\0' || mb == 0 || mb > (UINT64_MAX >> 20))
      throw std::invalid_argument(fmt::format(
        "KB_MEMORY_BUDGET_MB='{}': expected a positive whole number of MiB", env));
    return {mb << 20, "KB_MEMORY_BUDGET_MB"};
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  const uint64_t phys = pages > 0 && page > 0 ? mul_sat(uint64_t(pages), uint64_t(page))
                                              : uint64_t{4} << 30;
  return {phys / 4 * 3, "3/4 of physical memory; set KB_MEMORY_BUDGET_MB to change it"};
}

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

void check_memory(const std::string& what, uint64_t estimate) {
  const memory_budget b = current_memory_budget();
  if (estimate > b.bytes)
    throw std::invalid_argument(fmt::format(
      "{} needs about {} of memory, more than the budget of {} ({})", what,
      estimate == UINT64_MAX ? std::string("16 EiB or more") : format_bytes(estimate),
      format_bytes(b.bytes), b.source));
}

} // namespace kb
