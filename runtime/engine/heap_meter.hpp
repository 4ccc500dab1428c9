#pragma once
// The bytes the process's allocator has handed out and not yet taken back:
// what `--memory` measures around the construction of each node (the
// node's object, its actor's storage and everything its constructor
// allocates). glibc's mallinfo2, or the sanitizer's own count in a
// sanitizer build (whose allocator glibc does not see).

#include <cstdint>

namespace kb {

/// Heap bytes in use by the whole process now (every thread's: what other
/// threads allocate meanwhile counts too).
uint64_t heap_in_use();

} // namespace kb
