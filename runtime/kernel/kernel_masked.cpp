// tl::context's masked loads and stores, and stores of strided views
// (kernels/tl.hpp, docs/adr/0026). The mask is known in Phase 1, so the
// DMA moves only the live elements: one command per group of rows with the
// same live runs (mask_runs.hpp); a load's masked-off elements get `other`
// from MATH `full` commands beside it, each writing one group of dead runs.
// Every command's op record names exactly the views it moves, so the Phase
// 2 replay writes the same bytes.
#include "runtime/kernel/kernel_context.hpp"

#include "runtime/address.hpp"
#include "runtime/kernel/kernel_commands.hpp"
#include "runtime/kernel/tensor_state.hpp"
#include "runtime/data/dtype_convert.hpp"
#include "runtime/data/tensor.hpp"
#include "runtime/kernel/mask_runs.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kb {

namespace {

bool all_of_value(const std::vector<uint8_t>& v, uint8_t x) {
  return std::all_of(v.begin(), v.end(), [x](uint8_t b) { return b == x; });
}

} // namespace

std::vector<uint8_t> kernel_context::live_elements(const tl::tensor& mask, uint32_t rows,
                                                   uint32_t cols, const std::string& what) const {
  const auto& m = operand(mask, what + " (its mask)");
  if ((m.rows != rows && m.rows != 1) || (m.cols != cols && m.cols != 1))
    fail(fmt::format("{}: a {}x{} mask does not broadcast to the {}x{} block (same shape, 1x{}, "
                     "{}x1 or 1x1)",
                     what, m.rows, m.cols, rows, cols, cols, rows));
  if (!m.ready)
    fail(fmt::format("{}: its mask is a compute result, pending until Phase 2; a mask must be "
                     "known in Phase 1 (build it with arange, full and comparisons of loaded or "
                     "index tensors)",
                     what));
  std::vector<float> values(uint64_t{m.rows} * m.cols);
  decode_f32(m.type, m.data, values);
  std::vector<uint8_t> live(uint64_t{rows} * cols);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c)
      live[uint64_t{r} * cols + c] =
        values[uint64_t{m.rows == 1 ? 0 : r} * m.cols + (m.cols == 1 ? 0 : c)] != 0.0f;
  return live;
}

uint64_t kernel_context::issue_dma(bool read, uint64_t global, uint64_t stride,
                                   const tensor_view& local, std::span<const uint8_t> payload,
                                   std::vector<uint64_t> deps, std::optional<math_fn> atomic) {
  return port_.issue(simple_command{dma_stage(read, global, stride, local),
                                    dma_op(read, global, stride, local, atomic)},
                     payload, deps);
}

void kernel_context::check_live_stride(const std::vector<mask_run>& runs, uint32_t rows,
                                       uint64_t row_stride, const std::string& what) const {
  // Rows may be closer than the block is wide (a block hanging off a
  // matrix's last column), as long as no live element reaches the next row.
  if (row_stride == 0 || rows < 2)
    return;
  for (const mask_run& g : runs)
    if (g.col + uint64_t{g.cols} > row_stride)
      fail(fmt::format("{}: live element ({}, {}) lies beyond the row stride of {} elements "
                       "(it would alias the next row)",
                       what, g.row, g.col + g.cols - 1, row_stride));
}

tl::tensor kernel_context::load(tl::ptr src, tl::block b, const tl::tensor& mask, double other) {
  const tl_call call(*this, "tl.load");
  const uint32_t e = dtype_bytes(src.type);
  if (b.rows == 0 || b.cols == 0)
    fail(fmt::format("masked load of a {}x{} block: rows and cols must be at least 1", b.rows,
                     b.cols));
  const uint64_t stride = (b.row_stride ? b.row_stride : b.cols) * uint64_t{e};
  const std::string what =
    fmt::format("masked load of {}x{} {}", b.rows, b.cols, to_string(src.type));
  const std::vector<uint8_t> live = live_elements(mask, b.rows, b.cols, what);
  if (all_of_value(live, 1))
    return load(src, b);
  const auto runs = mask_runs(live, b.rows, b.cols, 1);
  const auto dead = mask_runs(live, b.rows, b.cols, 0);
  check_live_stride(runs, b.rows, b.row_stride, what);
  auto at = [&](const mask_run& g) { return src.address + g.row * stride + uint64_t{g.col} * e; };
  for (const mask_run& g : runs) { // only live elements must lie in one memory
    check_range(at(g), (g.rows - 1) * stride + uint64_t{g.cols} * e, src.type, false, what, src);
  }
  auto s = allocate(b.rows, b.cols, src.type);
  const tensor_view tile = s->view();
  // The DMA is programmed from the mask: it starts once the mask is computed.
  const std::vector<uint64_t> after_mask = producers({mask.raw()});
  std::vector<uint64_t> ids;
  for (const mask_run& g : runs) {
    std::vector<uint64_t> deps = after_mask; // and this kernel's own stores of these bytes
    for (const uint64_t w :
         hazards_.stores_into(memory_hazards::bytes(at(g), stride, g.rows, uint64_t{g.cols} * e)))
      deps.push_back(w);
    ids.push_back(issue_dma(true, at(g), stride, tile.block(g.row, g.col, g.rows, g.cols), {},
                            std::move(deps)));
  }
  const size_t dma_count = ids.size();
  for (const mask_run& g : dead) {
    op_record fill;
    fill.fn = math_fn::full;
    fill.scalar = other;
    fill.out = tile.block(g.row, g.col, g.rows, g.cols);
    ids.push_back(issue_math(std::move(fill), uint64_t{g.rows} * g.cols, after_mask));
  }
  s->users = ids;
  const std::vector<memory_hazards::write> earlier = hazards_.stores();
  suspend_until(
    [this, ids] {
      return std::all_of(ids.begin(), ids.end(), [this](uint64_t id) { return port_.done(id); });
    },
    fmt::format("waits for commands {}..{} ({} from {})", ids.front(), ids.back(), what,
                describe_address(src.address)),
    wait_kind::load, ids.front());
  // Phase 1 data: `other` as the dtype rounds it, the live runs over it.
  std::vector<uint8_t> one(e);
  const float fill_value = static_cast<float>(other);
  encode_f32(src.type, std::span<const float>(&fill_value, 1), one);
  s->data.resize(uint64_t{b.rows} * b.cols * e);
  for (uint64_t i = 0; i < uint64_t{b.rows} * b.cols; ++i)
    std::copy(one.begin(), one.end(), s->data.begin() + static_cast<ptrdiff_t>(i * e));
  for (size_t i = 0; i < dma_count; ++i)
    if (std::string from = port_.pending_from(ids[i]); !from.empty()) {
      // A compute result's bytes among the live ones: no Phase 1 data.
      s->data.clear();
      s->pending_from = std::move(from);
      s->writer = ids[i];
      return tl::tensor(std::move(s));
    }
  for (size_t i = 0; i < dma_count; ++i) {
    const mask_run& g = runs[i];
    const uint64_t row_bytes = uint64_t{g.cols} * e;
    std::vector<uint8_t> got = port_.take_data(ids[i]);
    if (got.size() != g.rows * row_bytes)
      fail(fmt::format("{} from {}: {} B came back, {} expected", what,
                       describe_address(at(g)), got.size(), g.rows * row_bytes));
    memory_hazards::forward(memory_hazards::bytes(at(g), stride, g.rows, row_bytes), earlier, got);
    for (uint32_t r = 0; r < g.rows; ++r)
      std::copy_n(got.begin() + static_cast<ptrdiff_t>(r * row_bytes), row_bytes,
                  s->data.begin() + static_cast<ptrdiff_t>(
                                      ((uint64_t{g.row} + r) * b.cols + g.col) * e));
  }
  s->ready = true;
  return tl::tensor(std::move(s));
}

tl::handle kernel_context::store_live(tl::ptr dst, const tl::tensor::state& s,
                                      uint64_t row_stride, const std::vector<uint8_t>* live,
                                      const tl::tensor::state* mask, const std::string& what,
                                      std::optional<math_fn> atomic) {
  if (dst.type != s.type)
    fail(fmt::format("{} through a {} pointer (convert it first)", what, to_string(dst.type)));
  if (!live && row_stride != 0 && row_stride < s.cols)
    fail(fmt::format("{}: a row stride of {} elements is below the {} columns", what, row_stride,
                     s.cols));
  const uint32_t e = dtype_bytes(dst.type);
  const uint64_t stride = (row_stride ? row_stride : s.cols) * uint64_t{e};
  const std::vector<mask_run> runs =
    live ? mask_runs(*live, s.rows, s.cols, 1) : std::vector<mask_run>{{0, s.rows, 0, s.cols}};
  if (runs.empty())
    return {0}; // nothing live: nothing moves
  if (live)
    check_live_stride(runs, s.rows, row_stride, what);
  auto at = [&](const mask_run& g) { return dst.address + g.row * stride + uint64_t{g.col} * e; };
  for (const mask_run& g : runs)
    check_range(at(g), (g.rows - 1) * stride + uint64_t{g.cols} * e, dst.type, true, what, dst);
  const tensor_view tile = s.view();
  std::vector<uint64_t> ids;
  for (const mask_run& g : runs) {
    const uint64_t row_bytes = uint64_t{g.cols} * e;
    std::vector<uint8_t> payload; // Phase 1 bytes of a tensor with data
    if (s.ready)
      for (uint32_t r = 0; r < g.rows; ++r) {
        const auto from = s.data.begin() +
                          static_cast<ptrdiff_t>(((uint64_t{g.row} + r) * s.cols + g.col) * e);
        payload.insert(payload.end(), from, from + static_cast<ptrdiff_t>(row_bytes));
      }
    // After the mask it is programmed from, then the loads, stores and
    // computes in flight on the same bytes (ADR-0025).
    const tensor_view range = memory_hazards::bytes(at(g), stride, g.rows, row_bytes);
    const uint64_t id = issue_dma(false, at(g), stride, tile.block(g.row, g.col, g.rows, g.cols),
                                  payload, write_deps({&s, mask}, range), atomic);
    s.users.push_back(id);
    hazards_.wrote({id, range, std::move(payload), what, atomic.has_value()});
    ids.push_back(id);
  }
  std::erase_if(joined_, [this](const auto& j) {
    return port_.done(j.first) && std::all_of(j.second.begin(), j.second.end(),
                                              [this](uint64_t id) { return port_.done(id); });
  });
  if (ids.size() > 1)
    joined_.emplace_back(ids.back(), std::vector<uint64_t>(ids.begin(), ids.end() - 1));
  return {ids.back()};
}

tl::handle kernel_context::store(tl::ptr dst, const tl::tensor& t, const tl::tensor& mask,
                                 uint64_t row_stride) {
  const tl_call call(*this, "tl.store");
  const auto& s = operand(t, "masked store");
  const std::string what =
    fmt::format("masked store of {}x{} {}", s.rows, s.cols, to_string(s.type));
  const std::vector<uint8_t> live = live_elements(mask, s.rows, s.cols, what);
  return store_live(dst, s, row_stride, &live, mask.raw(), what);
}

tl::handle kernel_context::store_view(tl::ptr dst, const tl::tensor& t, uint64_t row_stride) {
  const auto& s = operand(t, "store");
  return store_live(dst, s, row_stride, nullptr, nullptr,
                    fmt::format("store of a {}x{} {} view", s.rows, s.cols, to_string(s.type)));
}

} // namespace kb
