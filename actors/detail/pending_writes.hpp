#pragma once
// The bytes of a memory that hold a kernel's compute result (issue 28):
// written by a composite command's tile or a store of a pending tensor, so
// that Phase 1 has no data for them (seed ADR-0020 D3: compute results exist
// only in the Phase 2 replay). A kernel load of any of them must fail
// naming the writer rather than return the stale bytes the memory holds (or,
// in a program, get a pending tensor: docs/adr/0043). A store with data
// makes the bytes it writes real again.
//
// Kept as disjoint byte runs (one per row of a strided block), so a load
// looks up each of its rows in O(log n) however many blocks are marked: a
// program leaves every tile of its intermediate tensors marked.

#include "runtime/engine/event.hpp"
#include "kernels/tensor_view.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kb::detail {

class pending_writes {
public:
  struct writer {
    node_id requester = 0; ///< the DMA that wrote it
    uint64_t command = 0;  ///< its kernel's command
    std::string who;       ///< the kernel's name
  };

  /// `rows` rows of `row_bytes`, `stride` bytes apart from `address`.
  static tensor_view bytes_block(uint64_t address, uint64_t rows, uint64_t row_bytes,
                                 uint64_t stride);

  /// Marks `block` as written by `w` with no Phase 1 data.
  void add(const tensor_view& block, writer w);
  /// A store with data: unmarks the bytes `block` writes.
  void clear(const tensor_view& block);
  /// The writer of a marked byte `block` shares, or null.
  const writer* find(const tensor_view& block) const;
  bool empty() const { return runs_.empty(); }

private:
  struct run {
    uint64_t last = 0;   ///< one past its last byte
    uint32_t writer = 0; ///< index into writers_
  };
  /// Calls f(first, last) for each contiguous byte run of `block`.
  template <class F> static void for_each_run(const tensor_view& block, F&& f);
  void erase(uint64_t first, uint64_t last);

  std::map<uint64_t, run> runs_; ///< disjoint, by first byte
  std::vector<writer> writers_;
};

} // namespace kb::detail
