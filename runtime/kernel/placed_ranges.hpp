#pragma once
// Global memory the host placed a spread or replicated tensor in
// (docs/adr/0028): each block of a spread tensor, each copy of a replicated
// one. A kernel's access that starts in one of them must end in it (a
// spread tensor's blocks are not next to each other, so running past a
// block's end reads another tensor), and a replicated tensor is never
// written (its copies would differ). Built by the host before the launch,
// read by every PE's kernel runtime; immutable once sealed.

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

class placed_ranges {
public:
  struct range {
    uint64_t begin = 0, end = 0; ///< [begin, end) global addresses
    std::string what;            ///< "block 2 (rows 256..383) of spread tensor a"
    bool read_only = false;      ///< a replicated tensor's copy
  };

  /// Adds a range (none may overlap another: std::logic_error).
  void add(range r);
  bool empty() const { return ranges_.empty(); }
  const std::vector<range>& ranges() const { return ranges_; }

  /// Empty if an access of [address, address + span) (span >= 1) may go
  /// ahead; else why not, e.g. "[...) runs past the end of block 2 ... of
  /// spread tensor a (a spread tensor's access stays inside one block)".
  std::string check(uint64_t address, uint64_t span, bool write) const;

private:
  std::vector<range> ranges_; ///< sorted by begin, disjoint
};

} // namespace kb
