#pragma once
// What a tl::tensor refers to (kernels/tl.hpp): its TCM block and, for a
// loaded tensor, its bytes. Private to the kernel runtime (tl.cpp and the
// kernel_* sources); a kernel sees only kernels/tl.hpp.

#include "kernels/tl.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kb::tl {

struct tensor::state {
  uint32_t rows = 0;
  uint32_t cols = 0;
  dtype type = dtype::f32;
  uint64_t address = 0;        ///< global TCM address (a view's: of its first element)
  /// Bytes from row to row in TCM; 0: packed (cols elements). Nonzero only
  /// for a view of some columns of a wider tensor.
  uint64_t row_stride = 0;
  bool ready = false;          ///< data holds its Phase 1 bytes
  std::vector<uint8_t> data;   ///< row-major, packed
  /// "kernel gemm on sip0.cube0.pe0 (program 3)", for errors: the
  /// kernel's, shared by its tensors (made once per program, not per tensor).
  std::shared_ptr<const std::string> owner;
  const std::string& owner_text() const {
    static const std::string none = "a kernel";
    return owner ? *owner : none;
  }
  /// A loaded tensor without data (not ready): who wrote the bytes it
  /// loaded with a compute result (docs/adr/0043), for errors.
  std::string pending_from;
  /// Commands that read or write the block: it is reused only once they are
  /// all done (Phase 2 must never see a later tensor's op overtake them).
  mutable std::vector<uint64_t> users;
  uint64_t writer = 0;         ///< the command that fills it (0: none yet)
  /// A view's tensor (null: not a view), whose block it shares.
  std::shared_ptr<const state> root;
  /// Frees the TCM block (a view's hands its users to its tensor, whose
  /// state it holds: the block lives as long as any view of it).
  std::function<void(std::vector<uint64_t>)> release;

  /// Its elements in TCM, as the op log names them.
  tensor_view view() const {
    const uint64_t packed = uint64_t{cols} * dtype_bytes(type);
    return {address, rows, cols, row_stride != 0 ? row_stride : packed, type};
  }

  state() = default;
  state(const state&) = delete;
  state& operator=(const state&) = delete;
  ~state() {
    if (release)
      release(std::move(users));
  }
};

/// A load in flight: the context that issued it and the tensor it fills.
struct future::state {
  context* ctx = nullptr;
  uint64_t command = 0;
  std::shared_ptr<tensor::state> block; ///< the tensor; data set by the first get()
};

} // namespace kb::tl
