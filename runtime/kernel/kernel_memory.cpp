// tl::context's global-memory side (kernels/tl.hpp): loads, stores and
// composite commands, and the hazards between them (a load after this
// kernel's own store of the same bytes, store-to-load forwarding, a load of
// a pending compute result).
#include "runtime/kernel/kernel_context.hpp"

#include "runtime/address.hpp"
#include "runtime/kernel/kernel_commands.hpp"
#include "runtime/kernel/tensor_state.hpp"
#include "runtime/kernel/placed_ranges.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kb {

std::vector<uint64_t> kernel_context::producers(
  std::initializer_list<const tl::tensor::state*> inputs) const {
  std::vector<uint64_t> out;
  for (const auto* s : inputs)
    if (s && s->writer != 0 && !port_.done(s->writer) &&
        std::find(out.begin(), out.end(), s->writer) == out.end())
      out.push_back(s->writer);
  return out;
}

std::vector<uint64_t>
kernel_context::write_deps(std::initializer_list<const tl::tensor::state*> inputs,
                           const tensor_view& range) const {
  std::vector<uint64_t> deps = producers(inputs);
  for (const uint64_t d : hazards_.write_hazards(range))
    if (std::find(deps.begin(), deps.end(), d) == deps.end())
      deps.push_back(d);
  return deps;
}

tl::tensor kernel_context::load(tl::ptr src, tl::block b) {
  const tl_call call(*this, "tl.load");
  return get(load_async(src, b));
}

tl::future kernel_context::load_async(tl::ptr src, tl::block b) {
  const tl_call call(*this, "tl.load_async");
  const uint32_t e = dtype_bytes(src.type);
  const uint64_t stride = (b.row_stride ? b.row_stride : b.cols) * uint64_t{e};
  const uint64_t row_bytes = uint64_t{b.cols} * e;
  if (b.rows == 0 || b.cols == 0)
    fail(fmt::format("load of a {}x{} block: rows and cols must be at least 1", b.rows, b.cols));
  if (b.row_stride != 0 && b.row_stride < b.cols)
    fail(fmt::format("load: a row stride of {} elements is below the {} columns", b.row_stride,
                     b.cols));
  const std::string what = fmt::format("load of {}x{} {}", b.rows, b.cols, to_string(src.type));
  check_range(src.address, (b.rows - 1) * stride + row_bytes, src.type, false, what, src);
  const tensor_view range = memory_hazards::bytes(src.address, stride, b.rows, row_bytes);
  auto s = allocate(b.rows, b.cols, src.type);
  const stage st = dma_stage(true, src.address, stride, s->view());
  // A load after this kernel's own store to the same bytes starts once the
  // store is done (so the replay sees them in that order too).
  const std::vector<uint64_t> deps = hazards_.stores_into(range);
  const uint64_t id = port_.issue(simple_command{st, std::nullopt}, {}, deps);
  s->users.push_back(id);
  s->writer = id;
  hazards_.loading(id, fmt::format("{} from {}", what, describe_address(src.address)), range);
  auto f = std::make_shared<tl::future::state>();
  f->ctx = this;
  f->command = id;
  f->block = std::move(s);
  return tl::future(std::move(f));
}

tl::tensor kernel_context::get(const tl::future& f) {
  const tl_call call(*this, "tl.get");
  tl::future::state* fs = f.raw();
  if (!fs)
    fail("get() of a tl::future that holds nothing (default-constructed)");
  if (fs->ctx != this)
    fail(fmt::format("get() of a future of command {}, which another kernel issued",
                     fs->command));
  if (fs->block->ready)
    return tl::tensor(fs->block);
  const uint64_t id = fs->command;
  const memory_hazards::load* l = hazards_.load_of(id);
  if (!l)
    fail(fmt::format("get() of command {}, which is not a load of this kernel", id));
  suspend_until([this, id] { return port_.done(id); },
                fmt::format("waits for command {} ({})", id, l->what), wait_kind::load, id);
  tl::tensor::state& s = *fs->block;
  if (std::string from = port_.pending_from(id); !from.empty()) {
    // Bytes a compute result wrote: a tensor without data, usable by
    // compute and stores (docs/adr/0043); the replay fills it.
    s.pending_from = std::move(from);
    hazards_.loaded(id);
    return tl::tensor(fs->block);
  }
  s.data = port_.take_data(id);
  const uint64_t expected = uint64_t{l->range.rows} * l->range.row_bytes();
  if (s.data.size() != expected)
    fail(fmt::format("{}: {} B came back, {} expected", l->what, s.data.size(), expected));
  memory_hazards::forward(l->range, l->earlier, s.data);
  s.ready = true;
  hazards_.loaded(id);
  return tl::tensor(fs->block);
}

tl::handle kernel_context::store(tl::ptr dst, const tl::tensor& t, uint64_t row_stride) {
  const tl_call call(*this, "tl.store");
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
  check_range(dst.address, (s->rows - 1) * stride + row_bytes, dst.type, true, what, dst);
  const stage st = dma_stage(false, dst.address, stride, s->view());
  // Visible to this kernel's later loads once this write reaches the memory.
  const std::span<const uint8_t> payload =
    s->ready ? std::span<const uint8_t>(s->data) : std::span<const uint8_t>();
  const tensor_view range = memory_hazards::bytes(dst.address, stride, s->rows, row_bytes);
  const std::vector<uint64_t> deps = write_deps({s}, range);
  const uint64_t id = port_.issue(simple_command{st, std::nullopt}, payload, deps);
  s->users.push_back(id);
  hazards_.wrote({id, range, std::vector<uint8_t>(payload.begin(), payload.end()), what});
  return {id};
}

namespace {

/// [address, address + length).
byte_range bytes_at(uint64_t address, uint64_t length) { return {address, address + length}; }

} // namespace

std::vector<byte_range> kernel_context::reads_of(const pe_command& c) {
  std::vector<byte_range> out;
  if (const auto* g = std::get_if<gemm_plan_args>(&c)) {
    const uint64_t e = dtype_bytes(g->in_dtype);
    out.push_back(bytes_at(g->a_addr, uint64_t{g->m} * g->k * e));
    out.push_back(bytes_at(g->b_addr, uint64_t{g->k} * g->n * e));
    for (const epilogue_op& op : g->epilogue)
      if (op.operand)
        out.push_back(byte_span(*op.operand));
  } else if (const auto* m = std::get_if<math_plan_args>(&c)) {
    out.push_back(bytes_at(m->src_addr, uint64_t{m->m} * m->n * dtype_bytes(m->in_dtype)));
  }
  std::erase_if(out, [](const byte_range& r) { return r.empty(); });
  return out;
}

void kernel_context::check_composite(const pe_command& c, uint64_t dst, uint64_t bytes) const {
  if (!site_.placed || site_.placed->empty())
    return;
  const std::string what = describe(c);
  for (const byte_range& r : reads_of(c))
    if (std::string why = site_.placed->check(r.first, r.last - r.first, false); !why.empty())
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
  std::vector<uint64_t> deps = hazards_.stores_in_flight();
  const tensor_view range = memory_hazards::bytes(dst, row, m, row);
  if (m > 0 && row > 0)
    for (const uint64_t l : hazards_.loads_reading(range))
      deps.push_back(l);
  const uint64_t id = port_.issue(c, {}, deps);
  hazards_.composite(id, reads_of(c));
  if (m > 0 && row > 0)
    hazards_.wrote({id, range, {}, describe(c)});
  return {id};
}

tl::handle kernel_context::gemm(gemm_plan_args a) {
  const tl_call call(*this, "tl.gemm");
  return composite(a, a.c_addr, a.m, a.n, a.out_dtype.value_or(a.in_dtype));
}

tl::handle kernel_context::math(math_plan_args a) {
  const tl_call call(*this, "tl.math");
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
