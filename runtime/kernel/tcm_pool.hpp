#pragma once
// A kernel's TCM (seed ADR-0014 D5.1, docs/adr/0031-tcm-capacity.md): its
// AllocatableTCM and the blocks of tensors the kernel dropped while
// commands still use them. A dropped tensor's block is freed once every
// command that used it is done (`done`, from the kernel's PE_CPU), never
// before: a command in flight may still read or write it.
//
// Shared (std::shared_ptr) between the kernel_context and the tensors it
// made: a tensor dropped after its kernel ended still returns its block.

#include "runtime/kernel/tcm_allocator.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace kb {

class tcm_pool {
public:
  /// `done(id)`: command `id` has finished.
  tcm_pool(uint64_t size, uint64_t reserved, std::function<bool(uint64_t)> done);

  const tcm_allocator& allocator() const { return tcm_; }
  /// A block of `bytes` once the dropped blocks whose commands are done
  /// are freed; nullopt if none is large enough now.
  std::optional<uint64_t> allocate(uint64_t bytes);
  /// A tensor's block at `offset` is dropped; `users`: the commands that
  /// used it. Freed now if they are all done, else when sweep() sees them done.
  void release(uint64_t offset, std::vector<uint64_t> users);
  /// Frees the dropped blocks whose commands are all done; true if any was.
  bool sweep();
  /// Blocks dropped and waiting for their commands.
  size_t deferred() const { return deferred_.size(); }

private:
  bool all_done(const std::vector<uint64_t>& users) const;

  tcm_allocator tcm_;
  std::function<bool(uint64_t)> done_;
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> deferred_;
};

} // namespace kb
