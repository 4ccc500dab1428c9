#pragma once
// AllocatableTCM of one PE (seed ADR-0014 D5.1): the PE's TCM is split into
// SchedulerReservedTCM, [0, reserved), where PE_SCHEDULER keeps its tile
// slots, and AllocatableTCM, [reserved, size), which kernels allocate from.
// First fit over a free list that coalesces; offsets are aligned to 64 B.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace kb {

class tcm_allocator {
public:
  static constexpr uint64_t alignment = 64;

  /// Throws std::invalid_argument if reserved > size.
  tcm_allocator(uint64_t size, uint64_t reserved);

  /// The offset of a new block of `bytes` (rounded up to the alignment), or
  /// nullopt if no free block is large enough.
  std::optional<uint64_t> allocate(uint64_t bytes);
  /// Frees a block `allocate` returned; throws std::logic_error otherwise.
  void free(uint64_t offset);

  uint64_t size() const { return size_; }
  uint64_t reserved() const { return reserved_; }
  uint64_t free_bytes() const;
  uint64_t largest_free() const;
  uint64_t peak_used() const { return peak_; }
  uint64_t used() const { return used_; }
  /// "4096 B of 3 MiB AllocatableTCM free (largest block 4096 B)".
  std::string describe_free() const;

private:
  uint64_t size_;
  uint64_t reserved_;
  std::map<uint64_t, uint64_t> free_;  ///< offset -> length, disjoint, coalesced
  std::map<uint64_t, uint64_t> taken_; ///< offset -> length
  uint64_t used_ = 0;
  uint64_t peak_ = 0;
};

} // namespace kb
