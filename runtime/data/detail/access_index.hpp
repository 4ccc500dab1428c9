#pragma once
// The memory accesses of the ops seen so far, for dependency inference
// (dependency_graph.hpp). Not a public interface.
//
// Contiguous views live in a byte-keyed range map. A strided view (rows with
// gaps) of stride S starting at address a lives in the *band* (S, a % S,
// row bytes): all views with the same stride, column offset and row length,
// keyed by row number a / S. Two views of one band share a byte exactly when
// their row ranges meet, so a band is a range map over rows. Each range map
// keeps, per range, the last writer and the readers since (the reduced form).
//
// A query looks in the byte map over the view's span and in the bands that
// can meet it: its own band (exact), bands of the same stride whose columns
// meet its columns, bands of other strides whose occupied bytes meet its
// span. Entries found outside the view's own structure are confirmed with
// views_overlap(). Tiles of one matrix are bands of one stride whose columns
// do not meet, so a query costs a few map lookups however wide the matrix.

#include "runtime/data/tensor.hpp"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kb::detail {

/// An op's access: the op (an index) and the view it reads or writes.
struct access {
  uint32_t op;
  tensor_view view;
};

/// Per range of a coordinate (bytes or rows): the last writer and the
/// readers since. A write replaces everything in its range.
class range_map {
public:
  /// Calls f(access) for the writer, and the readers if `with_readers`, of
  /// every range meeting [first, last).
  template <class F>
  void visit(uint64_t first, uint64_t last, bool with_readers, F&& f) const {
    for (auto it = first_overlap(first); it != segs_.end() && it->first < last; ++it) {
      if (it->second.has_writer)
        f(it->second.writer);
      if (with_readers)
        for (const auto& r : it->second.readers)
          f(r);
    }
  }
  void add_read(uint64_t first, uint64_t last, const access& a);
  void set_write(uint64_t first, uint64_t last, const access& a);

private:
  struct segment {
    uint64_t end = 0;
    bool has_writer = false;
    access writer{};
    std::vector<access> readers;
  };
  using map = std::map<uint64_t, segment>;

  map::const_iterator first_overlap(uint64_t at) const;
  void split(uint64_t at);

  map segs_;
};

/// Every access so far, found by the bytes it touches.
class access_index {
public:
  explicit access_index(uint32_t max_row_checks) : max_row_checks_(max_row_checks) {}

  /// Appends the ops of recorded accesses that share a byte with `v`:
  /// writers, and readers too if `with_readers`.
  void conflicts(const tensor_view& v, bool with_readers, std::vector<uint32_t>& out) const;
  void add_read(const tensor_view& v, uint32_t op);
  void set_write(const tensor_view& v, uint32_t op);

private:
  /// The bands of one stride, by (column offset, row bytes), and the byte
  /// ranges they occupy (merged).
  struct stride_bands {
    std::map<std::pair<uint64_t, uint64_t>, range_map> bands;
    std::map<uint64_t, uint64_t> occupied; // first -> last, disjoint
    uint64_t max_row_bytes = 0;
    bool occupies(byte_range r) const;
    void occupy(byte_range r);
  };

  range_map& band_of(const tensor_view& v);
  void query_band(const range_map& band, uint64_t row_first, uint64_t row_last,
                  const tensor_view& v, bool with_readers, std::vector<uint32_t>& out) const;

  uint32_t max_row_checks_;
  range_map bytes_;
  std::unordered_map<uint64_t, stride_bands> strided_; // by stride
};

} // namespace kb::detail
