#pragma once
// What a tl::tensor refers to (kernels/tl.hpp): its TCM block and, for a
// loaded tensor, its bytes. Shared by the tl library and the kernel runtime.

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
  uint64_t address = 0;        ///< global TCM address
  bool ready = false;          ///< data holds its Phase 1 bytes
  std::vector<uint8_t> data;   ///< row-major, packed
  std::string owner;           ///< "kernel gemm on sip0.cube0.pe0", for errors
  /// Commands that read or write the block: it is reused only once they are
  /// all done (Phase 2 must never see a later tensor's op overtake them).
  mutable std::vector<uint64_t> users;
  uint64_t writer = 0;         ///< the command that fills it (0: none yet)
  std::function<void(std::vector<uint64_t>)> release; ///< frees the TCM block

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
