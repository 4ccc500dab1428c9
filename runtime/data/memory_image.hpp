#pragma once
// The contents of a memory (seed ADR-0020 D7): byte-addressable, sparse, paged.
// Bytes never written read as zero, or, inside a generated range, as its
// source makes them (a seeded random input, deployed without being made:
// docs/adr/0028); a page is made from its ranges when first written. A
// memory actor owns one image for the addresses it serves; the host keeps
// one of everything it deployed (the initial image Phase 2 replays on).
// Plain data, no engine state.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

namespace kb {

class memory_image {
public:
  /// 16 KiB. A kernel's programs each write a few hundred bytes into their
  /// own memory's region, so an image holds a page per program: at 64 KiB
  /// pages, 256 MiB of a 4,096-PE kernel run's 609 MB (heaptrack; issue 31),
  /// 412 MB in all at 16 KiB. 4 KiB pages took it to 366 MB but slowed
  /// Phase 2 on dense tensors by 10-20% (deeper page map, bench/phase2_speed
  /// at 2048^3: 0.64-0.74x Eigen against 0.79-0.82x); 16 KiB: 0.77-0.81x.
  static constexpr uint64_t page_bytes = uint64_t{1} << 14;

  memory_image() = default;
  memory_image(memory_image&&) noexcept = default;
  memory_image& operator=(memory_image&&) noexcept = default;
  /// Deep copy (a snapshot).
  memory_image(const memory_image& other);
  memory_image& operator=(const memory_image& other);

  /// Copies `bytes` to [address, address + bytes.size()).
  void write(uint64_t address, std::span<const uint8_t> bytes);
  /// Copies [address, address + out.size()) into `out` (zeros where never written).
  void read(uint64_t address, std::span<uint8_t> out) const;
  std::vector<uint8_t> read(uint64_t address, uint64_t length) const;

  /// Strided forms: `rows` rows of `row_bytes` each, `stride` bytes apart in
  /// memory, packed back to back in `packed` (rows * row_bytes bytes).
  void write_rows(uint64_t address, uint64_t stride, uint64_t rows, uint64_t row_bytes,
                  std::span<const uint8_t> packed);
  void read_rows(uint64_t address, uint64_t stride, uint64_t rows, uint64_t row_bytes,
                 std::span<uint8_t> packed) const;

  /// Creates every page of [address, address + length) not present yet (as
  /// zeros); contents do not change. After this, writes inside the range
  /// never insert into the page map, so threads may write disjoint bytes of
  /// it concurrently (the Phase 2 workers rely on this).
  void touch(uint64_t address, uint64_t length);

  /// Makes bytes [first, first + out.size()) of a generated range; must be
  /// pure (the same bytes every call) and safe to call from several threads.
  using byte_source = std::function<void(uint64_t first, std::span<uint8_t> out)>;
  /// Bytes of [address, address + length) never written read as byte
  /// `source_first + (a - address)` of `source`. Ranges may not overlap
  /// (std::invalid_argument). Reads never make pages; writes (and `touch`)
  /// make a page from its ranges first.
  void generate(uint64_t address, uint64_t length, std::shared_ptr<const byte_source> source,
                uint64_t source_first = 0);
  /// Makes the pages of [address, address + length) that a generated range
  /// covers and that are not made yet: later reads of them copy bytes
  /// instead of generating them again (a memory that serves a kernel's
  /// loads of an input, block after block). Other pages stay absent.
  void keep_generated(uint64_t address, uint64_t length);
  /// Makes every page of every generated range (before threads write the
  /// image: Phase 2), so that later reads cost no generation.
  void materialize();
  /// Visits every generated range: f(address, length, source, source_first).
  template <class F>
  void for_each_range(F&& f) const {
    for (const auto& [at, r] : ranges_)
      f(at, r.length, r.source, r.first);
  }

  /// Pages ever written, and the bytes they hold (for reports and tests).
  size_t pages() const { return pages_.size(); }
  uint64_t resident_bytes() const { return pages_.size() * page_bytes; }

  /// Visits every written page in address order: f(page_address, span of page_bytes).
  template <class F>
  void for_each_page(F&& f) const {
    for (const auto& [index, page] : pages_)
      f(index * page_bytes, std::span<const uint8_t>(page.get(), page_bytes));
  }

  friend bool operator==(const memory_image& a, const memory_image& b);

private:
  uint8_t* page_for_write(uint64_t index);
  const uint8_t* page_for_read(uint64_t index) const;
  /// What [address, address + out.size()) holds where no page exists:
  /// zeros, or what the generated ranges make.
  void fill_unwritten(uint64_t address, std::span<uint8_t> out) const;

  struct range {
    uint64_t length = 0;
    std::shared_ptr<const byte_source> source;
    uint64_t first = 0;
  };
  std::map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  std::map<uint64_t, range> ranges_; ///< by address, disjoint
};

} // namespace kb
