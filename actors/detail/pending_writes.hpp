#pragma once
// The bytes of a memory that hold a kernel's compute result (issue 28):
// written by a composite command's tile or a store of a pending tensor, so
// that Phase 1 has no data for them (seed ADR-0020 D3: compute results exist
// only in the Phase 2 replay). A kernel load of any of them must fail
// naming the writer rather than return the stale bytes the memory holds.
// A store with data over a whole marked block makes it real again.

#include "runtime/engine/event.hpp"
#include "kernels/tensor_view.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace kb::detail {

class pending_writes {
public:
  struct writer {
    node_id requester = 0; ///< the DMA that wrote it
    uint64_t command = 0;  ///< its kernel's command
    std::string who;       ///< the kernel's name
  };
  struct entry {
    tensor_view block; ///< bytes (type i8: cols are bytes, stride in bytes)
    writer by;
  };

  /// `rows` rows of `row_bytes`, `stride` bytes apart from `address`.
  static tensor_view bytes_block(uint64_t address, uint64_t rows, uint64_t row_bytes,
                                 uint64_t stride);

  /// Marks `block` as written by `w` with no Phase 1 data.
  void add(const tensor_view& block, writer w);
  /// A store with data: unmarks every marked block `block` covers whole.
  void clear(const tensor_view& block);
  /// A marked block sharing a byte with `block`, or null.
  const entry* find(const tensor_view& block) const;
  bool empty() const { return marked_.empty(); }

private:
  std::multimap<uint64_t, entry> marked_; ///< by first byte
  uint64_t widest_ = 0;                   ///< the largest span of a marked block
};

} // namespace kb::detail
