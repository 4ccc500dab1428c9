// tl::context's global-memory side (kernels/tl.hpp): loads, stores and
// composite commands, and the hazards between them (a load after this
// kernel's own store of the same bytes, store-to-load forwarding, a load of
// a pending compute result).
#include "runtime/kernel/kernel_context.hpp"

#include "runtime/address.hpp"
#include "runtime/kernel/tensor_state.hpp"
#include "runtime/kernel/placed_ranges.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kb {

namespace {

/// Overlap of byte ranges [a, a + an) and [b, b + bn).
bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) { return a < b + bn && b < a + an; }

/// Whether two row sets (rows of row_bytes, stride apart) share a byte.
bool rows_overlap(uint64_t a, uint64_t a_stride, uint64_t a_rows, uint64_t a_bytes, uint64_t b,
                  uint64_t b_stride, uint64_t b_rows, uint64_t b_bytes) {
  const uint64_t a_span = (a_rows - 1) * a_stride + a_bytes;
  const uint64_t b_span = (b_rows - 1) * b_stride + b_bytes;
  if (!overlap(a, a_span, b, b_span))
    return false;
  for (uint64_t r = 0; r < a_rows; ++r) {
    const uint64_t row = a + r * a_stride;
    if (row + a_bytes <= b || row >= b + b_span)
      continue;
    // rows of b that may touch [row, row + a_bytes)
    const uint64_t first = row >= b + b_bytes ? (row - b - b_bytes) / b_stride : 0;
    for (uint64_t q = first; q < b_rows; ++q) {
      const uint64_t brow = b + q * b_stride;
      if (brow >= row + a_bytes)
        break;
      if (overlap(row, a_bytes, brow, b_bytes))
        return true;
    }
  }
  return false;
}

} // namespace

std::vector<uint64_t> kernel_context::producers(
  std::initializer_list<const tl::tensor::state*> inputs) const {
  std::vector<uint64_t> out;
  for (const auto* s : inputs)
    if (s && s->writer != 0 && !port_.done(s->writer) &&
        std::find(out.begin(), out.end(), s->writer) == out.end())
      out.push_back(s->writer);
  return out;
}

std::vector<uint64_t> kernel_context::stores_in_flight() const {
  std::vector<uint64_t> out;
  for (const written& w : in_flight_)
    if (!port_.done(w.command))
      out.push_back(w.command);
  return out;
}

void kernel_context::drop_finished_stores() {
  for (auto it = in_flight_.begin(); it != in_flight_.end();)
    it = port_.done(it->command) ? in_flight_.erase(it) : it + 1;
}

void kernel_context::note_write(written w) {
  drop_finished_stores();
  if (w.data.empty())
    pending_.push_back(std::move(w));
  else
    in_flight_.push_back(std::move(w));
}

void kernel_context::forward_stores(uint64_t address, uint64_t stride, uint64_t rows,
                                    uint64_t row_bytes, const std::vector<written>& stores,
                                    std::vector<uint8_t>& data) const {
  // Only the stores after the last atomic on these bytes: the memory
  // computed what the atomic left there, and the load waited for it.
  size_t first = 0;
  for (size_t i = 0; i < stores.size(); ++i)
    if (stores[i].atomic && rows_overlap(address, stride, rows, row_bytes, stores[i].address,
                                         stores[i].stride, stores[i].rows, stores[i].row_bytes))
      first = i + 1;
  for (size_t i = first; i < stores.size(); ++i) {
    const written& w = stores[i];
    if (w.atomic ||
        !rows_overlap(address, stride, rows, row_bytes, w.address, w.stride, w.rows, w.row_bytes))
      continue;
    // Copy every byte both cover, row by row of the store.
    for (uint64_t r = 0; r < w.rows; ++r) {
      const uint64_t src = w.address + r * w.stride;
      for (uint64_t lr = 0; lr < rows; ++lr) {
        const uint64_t dst = address + lr * stride;
        const uint64_t lo = std::max(src, dst), hi = std::min(src + w.row_bytes, dst + row_bytes);
        if (lo < hi)
          std::copy_n(w.data.begin() + static_cast<ptrdiff_t>(r * w.row_bytes + (lo - src)),
                      hi - lo, data.begin() + static_cast<ptrdiff_t>(lr * row_bytes + (lo - dst)));
      }
    }
  }
}

void kernel_context::check_not_pending(uint64_t address, uint64_t stride, uint64_t rows,
                                       uint64_t row_bytes, const std::string& what) const {
  for (const written& w : pending_)
    if (rows_overlap(address, stride, rows, row_bytes, w.address, w.stride, w.rows, w.row_bytes))
      fail(fmt::format("{} from {} reads what command {} ({}) wrote: a compute result, whose "
                       "data exists only in the Phase 2 replay",
                       what, describe_address(address), w.command, w.what));
}

tl::tensor kernel_context::load(tl::ptr src, tl::block b) { return get(load_async(src, b)); }

tl::future kernel_context::load_async(tl::ptr src, tl::block b) {
  const uint32_t e = dtype_bytes(src.type);
  const uint64_t stride = (b.row_stride ? b.row_stride : b.cols) * uint64_t{e};
  const uint64_t row_bytes = uint64_t{b.cols} * e;
  if (b.rows == 0 || b.cols == 0)
    fail(fmt::format("load of a {}x{} block: rows and cols must be at least 1", b.rows, b.cols));
  if (b.row_stride != 0 && b.row_stride < b.cols)
    fail(fmt::format("load: a row stride of {} elements is below the {} columns", b.row_stride,
                     b.cols));
  const std::string what = fmt::format("load of {}x{} {}", b.rows, b.cols, to_string(src.type));
  check_range(src.address, (b.rows - 1) * stride + row_bytes, src.type, false, what);
  check_not_pending(src.address, stride, b.rows, row_bytes, what);
  auto s = allocate(b.rows, b.cols, src.type);
  stage st;
  st.type = stage_type::dma_read;
  st.unit = unit_role::dma;
  st.params.address = src.address;
  st.params.row_stride_bytes = stride;
  st.params.rows = b.rows;
  st.params.row_bytes = row_bytes;
  st.params.bytes = b.rows * row_bytes;
  st.params.tm = b.rows;
  st.params.tn = b.cols;
  st.params.in_dtype = st.params.out_dtype = src.type;
  st.params.local_address = s->address;
  st.params.want_data = true;
  // A load after this kernel's own store to the same bytes starts once the
  // store is done (so the replay sees them in that order too).
  drop_finished_stores();
  std::vector<uint64_t> deps;
  for (const written& w : in_flight_)
    if (rows_overlap(src.address, stride, b.rows, row_bytes, w.address, w.stride, w.rows,
                     w.row_bytes))
      deps.push_back(w.command);
  const uint64_t id = port_.issue(simple_command{st, std::nullopt}, {}, deps);
  s->users.push_back(id);
  s->writer = id;
  loads_[id] = {fmt::format("{} from {}", what, describe_address(src.address)),
                src.address, stride, b.rows, row_bytes, in_flight_};
  auto f = std::make_shared<tl::future::state>();
  f->ctx = this;
  f->command = id;
  f->block = std::move(s);
  return tl::future(std::move(f));
}

tl::tensor kernel_context::get(const tl::future& f) {
  tl::future::state* fs = f.raw();
  if (!fs)
    fail("get() of a tl::future that holds nothing (default-constructed)");
  if (fs->ctx != this)
    fail(fmt::format("get() of a future of command {}, which another kernel issued",
                     fs->command));
  if (fs->block->ready)
    return tl::tensor(fs->block);
  const uint64_t id = fs->command;
  const auto it = loads_.find(id);
  if (it == loads_.end())
    fail(fmt::format("get() of command {}, which is not a load of this kernel", id));
  suspend_until([this, id] { return port_.done(id); },
                fmt::format("waits for command {} ({})", id, it->second.what), wait_kind::load,
                id);
  const load_in_flight& l = it->second;
  tl::tensor::state& s = *fs->block;
  s.data = port_.take_data(id);
  if (s.data.size() != l.rows * l.row_bytes)
    fail(fmt::format("{}: {} B came back, {} expected", l.what, s.data.size(),
                     l.rows * l.row_bytes));
  forward_stores(l.address, l.stride, l.rows, l.row_bytes, l.earlier, s.data);
  s.ready = true;
  loads_.erase(it);
  return tl::tensor(fs->block);
}

std::vector<uint64_t> kernel_context::write_hazards(uint64_t address, uint64_t stride,
                                                    uint64_t rows, uint64_t row_bytes) const {
  std::vector<uint64_t> out;
  auto add = [&](uint64_t id) {
    if (!port_.done(id) && std::find(out.begin(), out.end(), id) == out.end())
      out.push_back(id);
  };
  for (const auto& [id, l] : loads_)
    if (rows_overlap(address, stride, rows, row_bytes, l.address, l.stride, l.rows, l.row_bytes))
      add(id);
  for (const written& w : in_flight_)
    if (rows_overlap(address, stride, rows, row_bytes, w.address, w.stride, w.rows, w.row_bytes))
      add(w.command);
  for (const composite_reads& c : composites_)
    for (const auto& [at, span] : c.reads)
      if (rows_overlap(address, stride, rows, row_bytes, at, span, 1, span))
        add(c.command);
  for (const written& w : pending_) // a compute result still being written
    if (rows_overlap(address, stride, rows, row_bytes, w.address, w.stride, w.rows, w.row_bytes))
      add(w.command);
  return out;
}

tl::handle kernel_context::store(tl::ptr dst, const tl::tensor& t, uint64_t row_stride) {
  const tl::tensor::state* s = t.raw();
  if (!s)
    fail("store of a tl::tensor that holds nothing");
  if (s->row_stride != 0) // a view of some columns (kernel_masked.cpp)
    return store_view(dst, t, row_stride);
  if (dst.type != s->type)
    fail(fmt::format("store of a {} tensor through a {} pointer (convert it first)",
                     to_string(s->type), to_string(dst.type)));
  const uint32_t e = dtype_bytes(dst.type);
  if (row_stride != 0 && row_stride < s->cols)
    fail(fmt::format("store: a row stride of {} elements is below the {} columns", row_stride,
                     s->cols));
  const uint64_t stride = (row_stride ? row_stride : s->cols) * uint64_t{e};
  const uint64_t row_bytes = uint64_t{s->cols} * e;
  const std::string what = fmt::format("store of {}x{} {}", s->rows, s->cols, to_string(dst.type));
  check_range(dst.address, (s->rows - 1) * stride + row_bytes, dst.type, true, what);
  stage st;
  st.type = stage_type::dma_write;
  st.unit = unit_role::dma;
  st.params.operand = 'C';
  st.params.address = dst.address;
  st.params.row_stride_bytes = stride;
  st.params.rows = s->rows;
  st.params.row_bytes = row_bytes;
  st.params.bytes = s->rows * row_bytes;
  st.params.tm = s->rows;
  st.params.tn = s->cols;
  st.params.in_dtype = st.params.out_dtype = dst.type;
  st.params.local_address = s->address;
  // Visible to this kernel's later loads once this write reaches the memory.
  const std::span<const uint8_t> payload =
    s->ready ? std::span<const uint8_t>(s->data) : std::span<const uint8_t>();
  std::vector<uint64_t> deps = producers({s});
  for (const uint64_t d : write_hazards(dst.address, stride, s->rows, row_bytes))
    if (std::find(deps.begin(), deps.end(), d) == deps.end())
      deps.push_back(d);
  const uint64_t id = port_.issue(simple_command{st, std::nullopt}, payload, deps);
  s->users.push_back(id);
  note_write({id, dst.address, s->rows, row_bytes, stride,
              std::vector<uint8_t>(payload.begin(), payload.end()), what});
  return {id};
}

namespace {

/// The byte envelope of a view: [address, last byte + 1).
std::pair<uint64_t, uint64_t> envelope(const tensor_view& v) {
  return {v.address, v.rows ? (v.rows - 1) * v.row_stride + v.row_bytes() : 0};
}

} // namespace

std::vector<std::pair<uint64_t, uint64_t>> kernel_context::reads_of(const pe_command& c) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  if (const auto* g = std::get_if<gemm_plan_args>(&c)) {
    const uint64_t e = dtype_bytes(g->in_dtype);
    out.emplace_back(g->a_addr, uint64_t{g->m} * g->k * e);
    out.emplace_back(g->b_addr, uint64_t{g->k} * g->n * e);
    for (const epilogue_op& op : g->epilogue)
      if (op.operand)
        out.push_back(envelope(*op.operand));
  } else if (const auto* m = std::get_if<math_plan_args>(&c)) {
    out.emplace_back(m->src_addr, uint64_t{m->m} * m->n * dtype_bytes(m->in_dtype));
  }
  std::erase_if(out, [](const auto& r) { return r.second == 0; });
  return out;
}

void kernel_context::check_composite(const pe_command& c, uint64_t dst, uint64_t bytes) const {
  if (!site_.placed || site_.placed->empty())
    return;
  const std::string what = describe(c);
  for (const auto& [at, length] : reads_of(c))
    if (std::string why = site_.placed->check(at, length, false); !why.empty())
      fail(fmt::format("{}: its read of {}", what, why));
  if (bytes > 0)
    if (std::string why = site_.placed->check(dst, bytes, true); !why.empty())
      fail(fmt::format("{}: its write of {}", what, why));
}

tl::handle kernel_context::composite(const pe_command& c, uint64_t dst, uint32_t m, uint32_t n,
                                     dtype out) {
  // After this kernel's stores in flight (it may read what they write) and
  // its loads in flight of what it writes; its output is a compute result,
  // pending in Phase 1.
  const uint64_t row = uint64_t{n} * dtype_bytes(out);
  check_composite(c, dst, uint64_t{m} * row);
  // (Composites among themselves keep their order in PE_SCHEDULER.)
  std::vector<uint64_t> deps = stores_in_flight();
  if (m > 0 && row > 0)
    for (const auto& [id, l] : loads_)
      if (!port_.done(id) &&
          rows_overlap(dst, row, m, row, l.address, l.stride, l.rows, l.row_bytes))
        deps.push_back(id);
  const uint64_t id = port_.issue(c, {}, deps);
  std::erase_if(composites_, [this](const composite_reads& r) { return port_.done(r.command); });
  composites_.push_back({id, reads_of(c)});
  if (m > 0 && row > 0)
    note_write({id, dst, m, row, row, {}, describe(c)});
  return {id};
}

tl::handle kernel_context::gemm(gemm_plan_args a) {
  return composite(a, a.c_addr, a.m, a.n, a.out_dtype.value_or(a.in_dtype));
}

tl::handle kernel_context::math(math_plan_args a) {
  return composite(a, a.dst_addr, a.m, a.n, a.out_dtype.value_or(a.in_dtype));
}

tl::handle kernel_context::issue_command(const pe_command& c) {
  if (auto* g = std::get_if<gemm_plan_args>(&c))
    return gemm(*g);
  if (auto* m = std::get_if<math_plan_args>(&c))
    return math(*m);
  return {port_.issue(c, {}, {})};
}

} // namespace kb
