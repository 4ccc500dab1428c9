#include "runtime/data/detail/access_index.hpp"

#include <algorithm>

namespace kb::detail {

// -- range_map -------------------------------------------------------------------

range_map::map::const_iterator range_map::first_overlap(uint64_t at) const {
  auto it = segs_.upper_bound(at);
  if (it != segs_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end > at)
      return prev;
  }
  return it;
}

void range_map::split(uint64_t at) {
  auto it = segs_.upper_bound(at);
  if (it == segs_.begin())
    return;
  --it;
  if (it->first < at && at < it->second.end) {
    segment tail = it->second;
    it->second.end = at;
    segs_.emplace_hint(std::next(it), at, std::move(tail));
  }
}

void range_map::add_read(uint64_t first, uint64_t last, const access& a) {
  if (last <= first)
    return;
  split(first);
  split(last);
  uint64_t at = first;
  auto it = segs_.lower_bound(first);
  while (at < last) {
    if (it == segs_.end() || it->first > at) { // never touched
      const uint64_t end = it == segs_.end() ? last : std::min(last, it->first);
      it = segs_.emplace_hint(it, at, segment{end, false, {}, {}});
    }
    auto& rs = it->second.readers;
    if (rs.empty() || rs.back().op != a.op || !(rs.back().view == a.view))
      rs.push_back(a);
    at = it->second.end;
    ++it;
  }
}

void range_map::set_write(uint64_t first, uint64_t last, const access& a) {
  if (last <= first)
    return;
  split(first);
  split(last);
  auto it = segs_.lower_bound(first);
  while (it != segs_.end() && it->first < last)
    it = segs_.erase(it);
  segs_.emplace_hint(it, first, segment{last, true, a, {}});
}

// -- access_index ---------------------------------------------------------------------

bool access_index::stride_bands::occupies(byte_range r) const {
  auto it = occupied.upper_bound(r.first);
  if (it != occupied.begin() && std::prev(it)->second > r.first)
    return true;
  return it != occupied.end() && it->first < r.last;
}

void access_index::stride_bands::occupy(byte_range r) {
  auto it = occupied.upper_bound(r.first);
  if (it != occupied.begin() && std::prev(it)->second >= r.first)
    --it; // merge with the range before
  while (it != occupied.end() && it->first <= r.last) {
    r.first = std::min(r.first, it->first);
    r.last = std::max(r.last, it->second);
    it = occupied.erase(it);
  }
  occupied.emplace_hint(it, r.first, r.last);
}

range_map& access_index::band_of(const tensor_view& v) {
  auto& sb = strided_[v.row_stride];
  sb.max_row_bytes = std::max(sb.max_row_bytes, v.row_bytes());
  sb.occupy(byte_span(v));
  return sb.bands[{v.address % v.row_stride, v.row_bytes()}];
}

void access_index::query_band(const range_map& band, uint64_t row_first, uint64_t row_last,
                              const tensor_view& v, bool with_readers,
                              std::vector<uint32_t>& out) const {
  // An entry's row may spill into the next row (column offset + row bytes
  // past the stride): start one row early.
  band.visit(row_first == 0 ? 0 : row_first - 1, row_last, with_readers, [&](const access& a) {
    if (views_overlap(a.view, v, max_row_checks_))
      out.push_back(a.op);
  });
}

namespace {
/// Whether columns [a, a + an) and [b, b + bn) meet on a circle of `s`
/// columns (a, b < s; an, bn <= s).
bool columns_meet(uint64_t a, uint64_t an, uint64_t b, uint64_t bn, uint64_t s) {
  auto meet = [](uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1) { return x0 < y1 && y0 < x1; };
  return meet(a, a + an, b, b + bn) || meet(a + s, a + an + s, b, b + bn) ||
         meet(a, a + an, b + s, b + bn + s);
}
} // namespace

void access_index::conflicts(const tensor_view& v, bool with_readers,
                             std::vector<uint32_t>& out) const {
  const byte_range span = byte_span(v);
  if (span.empty())
    return;
  const bool strided = !v.contiguous();
  bytes_.visit(span.first, span.last, with_readers, [&](const access& a) {
    // A contiguous view meets every range of its span; a strided one maybe not.
    if (!strided || views_overlap(a.view, v, max_row_checks_))
      out.push_back(a.op);
  });
  for (const auto& [s, sb] : strided_) {
    if (!sb.occupies(span))
      continue;
    const bool own_stride = strided && v.row_stride == s;
    const std::pair<uint64_t, uint64_t> own{v.address % s, v.row_bytes()};
    if (own_stride) // the view's own band: rows meet exactly when bytes do
      if (auto it = sb.bands.find(own); it != sb.bands.end())
        it->second.visit(v.address / s, v.address / s + v.rows, with_readers,
                         [&](const access& a) { out.push_back(a.op); });
    const uint64_t row_first = span.first / s, row_last = (span.last - 1) / s + 1;
    // The columns the view covers on the circle of s: all if its span is that long.
    const uint64_t lo = own_stride ? own.first : span.first % s;
    const uint64_t len = own_stride ? own.second : std::min(span.last - span.first, s);
    // The stride by value: clang before 16 cannot capture a structured
    // binding (the fuzz build, tests/fuzz).
    auto consider = [&, stride = s](const std::pair<uint64_t, uint64_t>& key,
                                    const range_map& band) {
      if (own_stride && key == own)
        return;
      if (columns_meet(key.first, key.second, lo, len, stride))
        query_band(band, row_first, row_last, v, with_readers, out);
    };
    if (len >= s || lo + len > s) { // the view wraps past s: scan all
      for (const auto& [key, band] : sb.bands)
        consider(key, band);
      continue;
    }
    // No wrap on either side: bands with column offset in (lo - max_row_bytes, lo + len).
    const uint64_t from = lo + 1 > sb.max_row_bytes ? lo + 1 - sb.max_row_bytes : 0;
    auto it = sb.bands.lower_bound({from, 0});
    for (; it != sb.bands.end() && it->first.first < lo + len; ++it)
      consider(it->first, it->second);
    // Bands that wrap past s reach columns [0, c + rb - s): those with c > s - max_row_bytes.
    const uint64_t wrapping = s + 1 > sb.max_row_bytes ? s + 1 - sb.max_row_bytes : 0;
    for (it = sb.bands.lower_bound({wrapping, 0}); it != sb.bands.end(); ++it)
      if (it->first.first >= lo + len)
        consider(it->first, it->second);
  }
}

void access_index::add_read(const tensor_view& v, uint32_t op) {
  const byte_range span = byte_span(v);
  if (span.empty())
    return;
  if (v.contiguous())
    bytes_.add_read(span.first, span.last, {op, v});
  else
    band_of(v).add_read(v.address / v.row_stride, v.address / v.row_stride + v.rows, {op, v});
}

void access_index::set_write(const tensor_view& v, uint32_t op) {
  const byte_range span = byte_span(v);
  if (span.empty())
    return;
  if (v.contiguous())
    bytes_.set_write(span.first, span.last, {op, v});
  else
    band_of(v).set_write(v.address / v.row_stride, v.address / v.row_stride + v.rows, {op, v});
}

} // namespace kb::detail
