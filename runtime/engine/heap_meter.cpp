#include "runtime/engine/heap_meter.hpp"

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__) // GCC
#define KB_HEAP_FROM_ASAN 1
#elif defined(__has_feature) // Clang (the fuzz build)
#if __has_feature(address_sanitizer)
#define KB_HEAP_FROM_ASAN 1
#endif
#endif

#if defined(KB_HEAP_FROM_ASAN)
// The sanitizer runtime's own count (libasan exports it; GCC ships no
// header for it).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#else
#include <malloc.h>
#endif

namespace kb {

uint64_t heap_in_use() {
#if defined(KB_HEAP_FROM_ASAN)
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd; // in arenas' chunks, and in chunks of their own
#endif
}

} // namespace kb
