#include "runtime/kernel/kernel_context.hpp"

#include "actors/detail/names.hpp"
#include "kernels/tensor_state.hpp"
#include "runtime/address.hpp"
#include "runtime/machine/fabric_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

kernel_context::kernel_context(kernel_site site, kernel_port& port)
  : site_(std::move(site)), port_(port),
    tcm_(std::make_shared<tcm_allocator>(site_.tcm_bytes, site_.tcm_reserved)),
    pool_(std::make_shared<tcm_pool>()) {
  pool_->tcm = tcm_;
  pool_->port = &port_;
}

void kernel_context::tcm_pool::release(uint64_t offset, std::vector<uint64_t> users) {
  for (uint64_t u : users)
    if (!port->done(u)) {
      deferred.emplace_back(offset, std::move(users));
      return;
    }
  tcm->free(offset);
}

void kernel_context::tcm_pool::sweep() {
  for (auto it = deferred.begin(); it != deferred.end();) {
    bool done = true;
    for (uint64_t u : it->second)
      done = done && port->done(u);
    if (done) {
      tcm->free(it->first);
      it = deferred.erase(it);
    } else {
      ++it;
    }
  }
}

kernel_context::~kernel_context() = default;

void kernel_context::fail(const std::string& what) const {
  throw tl::kernel_error(fmt::format("kernel {} on {}: {}", site_.kernel, site_.pe, what));
}

void kernel_context::start(kernel_fn fn) {
  fiber_ = std::make_unique<kernel_fiber>([this, fn = std::move(fn)] { fn(*this); });
  watch_ = std::make_unique<kernel_watch>(site_.pe, site_.kernel);
  resume();
}

void kernel_context::resume() {
  watch_->running();
  try {
    fiber_->resume();
  } catch (...) {
    watch_->returned();
    throw;
  }
  if (fiber_->finished())
    watch_->returned();
  else
    watch_->waiting(why_);
}

void kernel_context::on_done() {
  if (!fiber_ || fiber_->finished() || fiber_->running() || !ready_ || !ready_())
    return;
  ready_ = nullptr;
  why_.clear();
  resume();
}

std::string kernel_context::waiting_for() const { return ready_ ? why_ : std::string(); }

void kernel_context::suspend_until(std::function<bool()> ready, std::string why, wait_kind kind,
                                   uint64_t command) {
  if (ready())
    return;
  ready_ = std::move(ready);
  why_ = std::move(why);
  port_.blocked(kind, command);
  fiber_->suspend();
  port_.resumed();
}

uint32_t kernel_context::program_id(unsigned axis) const {
  if (axis > 2)
    fail(fmt::format("program_id({}): the grid has axes 0, 1 and 2", axis));
  return site_.program_id[axis];
}

uint32_t kernel_context::num_programs(unsigned axis) const {
  if (axis > 2)
    fail(fmt::format("num_programs({}): the grid has axes 0, 1 and 2", axis));
  return site_.num_programs[axis];
}

void kernel_context::check_range(uint64_t address, uint64_t span, dtype type,
                                 const std::string& what) const {
  const uint32_t e = dtype_bytes(type);
  if (address % e != 0)
    fail(fmt::format("{}: address {} is not aligned to its {} elements ({} B)", what,
                     detail::describe_address(address), to_string(type), e));
  if (span == 0)
    fail(fmt::format("{}: an empty block", what));
  if (!site_.fabric)
    fail("the PE was built without the machine's fabric map (build it with build_machine)");
  const uint64_t last = address + (span - 1);
  const auto owner = site_.fabric->memory_of(address);
  if (!owner)
    fail(fmt::format("{}: address {} is outside every memory of the machine", what,
                     detail::describe_address(address)));
  // One memory holds the whole block: both ends in the same space, SIP,
  // cube (and PE for a TCM), within the memory's size.
  const global_address f = global_address::decode(address), l = global_address::decode(last);
  uint64_t size = global_address::max_offset + 1;
  if (f.space == mem_space::tcm && site_.tcm_size)
    size = site_.tcm_size(site_.fabric->name(*owner));
  const bool inside = last >= address && l.space == f.space && l.sip == f.sip &&
                      l.cube == f.cube && l.pe == f.pe && l.offset >= f.offset &&
                      l.offset < size;
  if (!inside) {
    const auto last_owner = last >= address ? site_.fabric->memory_of(last) : std::nullopt;
    fail(fmt::format("{}: [{}, +{} B) runs past the end of {} ({} B; its last byte {} is {})", what,
                     detail::describe_address(address), span, site_.fabric->name(*owner),
                     size, detail::describe_address(last),
                     last_owner && *last_owner != *owner
                       ? "in " + site_.fabric->name(*last_owner)
                       : std::string("in no memory")));
  }
}

std::shared_ptr<tl::tensor::state> kernel_context::allocate(uint32_t rows, uint32_t cols,
                                                            dtype type) {
  const uint64_t bytes = uint64_t{rows} * cols * dtype_bytes(type);
  pool_->sweep();
  auto offset = tcm_->allocate(bytes);
  while (!offset && !pool_->deferred.empty()) {
    // Blocks of dropped tensors wait for their commands: wait for those.
    suspend_until(
      [this] {
        const size_t before = pool_->deferred.size();
        pool_->sweep();
        return pool_->deferred.size() < before;
      },
      fmt::format("waits for commands on dropped tensors to free TCM for a {} B tensor", bytes),
      wait_kind::tcm, 0);
    offset = tcm_->allocate(bytes);
  }
  if (!offset)
    fail(fmt::format("TCM overflow: a {}x{} {} tensor needs {} B, but {}", rows, cols,
                     to_string(type), bytes, tcm_->describe_free()));
  auto s = std::make_shared<tl::tensor::state>();
  s->rows = rows;
  s->cols = cols;
  s->type = type;
  s->address =
    global_address{mem_space::tcm, site_.sip, site_.cube, site_.index, *offset}.encode();
  s->owner = fmt::format("kernel {} on {}", site_.kernel, site_.pe);
  s->release = [pool = pool_, at = *offset](std::vector<uint64_t> users) {
    pool->release(at, std::move(users));
  };
  return s;
}

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
  for (const written& w : stores) {
    if (!rows_overlap(address, stride, rows, row_bytes, w.address, w.stride, w.rows, w.row_bytes))
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
                       what, detail::describe_address(address), w.command, w.what));
}

tl::tensor kernel_context::load(tl::ptr src, tl::block b) {
  const uint32_t e = dtype_bytes(src.type);
  const uint64_t stride = (b.row_stride ? b.row_stride : b.cols) * uint64_t{e};
  const uint64_t row_bytes = uint64_t{b.cols} * e;
  if (b.rows == 0 || b.cols == 0)
    fail(fmt::format("load of a {}x{} block: rows and cols must be at least 1", b.rows, b.cols));
  if (b.row_stride != 0 && b.row_stride < b.cols)
    fail(fmt::format("load: a row stride of {} elements is below the {} columns", b.row_stride,
                     b.cols));
  const std::string what = fmt::format("load of {}x{} {}", b.rows, b.cols, to_string(src.type));
  check_range(src.address, (b.rows - 1) * stride + row_bytes, src.type, what);
  check_not_pending(src.address, stride, b.rows, row_bytes, what);
  auto s = allocate(b.rows, b.cols, src.type);
  stage st;
  st.type = stage_type::dma_read;
  st.component = site_.pe + ".pe_dma";
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
  const std::vector<written> earlier = in_flight_;
  suspend_until([this, id] { return port_.done(id); },
                fmt::format("waits for command {} ({} from {})", id, what,
                            detail::describe_address(src.address)),
                wait_kind::load, id);
  s->data = port_.take_data(id);
  if (s->data.size() != st.params.bytes)
    fail(fmt::format("{} from {}: {} B came back, {} expected", what,
                     detail::describe_address(src.address), s->data.size(), st.params.bytes));
  forward_stores(src.address, stride, b.rows, row_bytes, earlier, s->data);
  s->ready = true;
  return tl::tensor(std::move(s));
}

tl::handle kernel_context::store(tl::ptr dst, const tl::tensor& t, uint64_t row_stride) {
  const tl::tensor::state* s = t.raw();
  if (!s)
    fail("store of a tl::tensor that holds nothing");
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
  check_range(dst.address, (s->rows - 1) * stride + row_bytes, dst.type, what);
  stage st;
  st.type = stage_type::dma_write;
  st.component = site_.pe + ".pe_dma";
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
  const uint64_t id = port_.issue(simple_command{st, std::nullopt}, payload, producers({s}));
  s->users.push_back(id);
  note_write({id, dst.address, s->rows, row_bytes, stride,
              std::vector<uint8_t>(payload.begin(), payload.end()), what});
  return {id};
}

tl::handle kernel_context::composite(const pe_command& c, uint64_t dst, uint32_t m, uint32_t n,
                                     dtype out) {
  // After this kernel's stores in flight (it may read what they write); its
  // output is a compute result, pending in Phase 1.
  const uint64_t id = port_.issue(c, {}, stores_in_flight());
  const uint64_t row = uint64_t{n} * dtype_bytes(out);
  if (m > 0 && row > 0)
    note_write({id, dst, m, row, row, {}, describe(c)});
  return {id};
}

tl::handle kernel_context::gemm(gemm_plan_args a) {
  a.pe_prefix = site_.pe;
  return composite(a, a.c_addr, a.m, a.n, a.out_dtype.value_or(a.in_dtype));
}

tl::handle kernel_context::math(math_plan_args a) {
  a.pe_prefix = site_.pe;
  return composite(a, a.dst_addr, a.m, a.n, a.out_dtype.value_or(a.in_dtype));
}

tl::handle kernel_context::issue_command(const pe_command& c) {
  if (auto* g = std::get_if<gemm_plan_args>(&c))
    return gemm(*g);
  if (auto* m = std::get_if<math_plan_args>(&c))
    return math(*m);
  return {port_.issue(c, {}, {})};
}

const tl::tensor::state& kernel_context::operand(const tl::tensor& t,
                                                 const std::string& what) const {
  if (!t.raw())
    fail(fmt::format("{}: an operand that holds nothing (a default-constructed tl::tensor)", what));
  return *t.raw();
}

tl::tensor kernel_context::compute(op_record op, uint32_t rows, uint32_t cols, dtype type,
                                   math_op cost, uint64_t elements,
                                   std::vector<uint64_t> deps) {
  auto s = allocate(rows, cols, type);
  op.out = packed_view(s->address, rows, cols, type);
  if (const std::string bad = check(op); !bad.empty())
    fail(fmt::format("{}: {}", op.op_name, bad));
  stage st;
  st.component = site_.pe + (op.kind == op_kind::gemm ? ".pe_gemm" : ".pe_math");
  st.type = op.kind == op_kind::gemm ? stage_type::gemm : stage_type::math;
  st.params.tm = rows;
  st.params.tn = cols;
  st.params.in_dtype = op.inputs.front().type;
  st.params.out_dtype = type;
  st.params.last_k = true;
  if (op.kind == op_kind::gemm) {
    st.params.tk = op.inputs[0].cols;
  } else {
    st.params.elements = elements;
    st.params.op = cost;
  }
  const uint64_t id = port_.issue(simple_command{st, std::move(op)}, {}, deps);
  s->users.push_back(id);
  s->writer = id;
  // The TCM marks the block: another PE's load of it fails by name (issue 28).
  port_.mark_pending(s->address, uint64_t{rows} * cols * dtype_bytes(type), id);
  return tl::tensor(std::move(s));
}

namespace {

/// The PE_MATH timing class of `f` (DESIGN §4 op_cost: 4 for the
/// transcendental ones, 1 for the rest).
math_op cost_of(math_fn f) {
  switch (f) {
  case math_fn::exp:
  case math_fn::log:
  case math_fn::tanh:
  case math_fn::sqrt:
  case math_fn::div:
  case math_fn::recip:
    return math_op::exp;
  case math_fn::rsqrt:
    return math_op::rsqrt;
  case math_fn::relu:
    return math_op::relu;
  case math_fn::mul:
  case math_fn::scale:
    return math_op::mul;
  default:
    return math_op::add;
  }
}

tensor_view view_of(const tl::tensor::state& s) {
  return packed_view(s.address, s.rows, s.cols, s.type);
}

} // namespace

tl::tensor kernel_context::dot(const tl::tensor& a, const tl::tensor& b, dtype out) {
  const auto& x = operand(a, "dot");
  const auto& y = operand(b, "dot");
  if (x.cols != y.rows)
    fail(fmt::format("dot of {}x{} and {}x{}: the inner dimensions differ", x.rows, x.cols,
                     y.rows, y.cols));
  if (x.type != y.type)
    fail(fmt::format("dot of {} and {}: cast one first", to_string(x.type), to_string(y.type)));
  op_record op;
  op.kind = op_kind::gemm;
  op.op_name = fmt::format("dot_{}", to_string(x.type));
  op.inputs = {view_of(x), view_of(y)};
  auto t = compute(std::move(op), x.rows, y.cols, out, math_op::add, 0, producers({&x, &y}));
  x.users.push_back(t.raw()->users.back());
  y.users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::unary(math_fn f, const tl::tensor& x, double scalar) {
  const auto& s = operand(x, std::string(to_string(f)));
  if (arity(f) != 1 || is_reduction(f) || f == math_fn::cast)
    fail(fmt::format("{} is not a unary op (use binary, reduce or cast)", to_string(f)));
  op_record op;
  op.kind = op_kind::math;
  op.fn = f;
  op.op_name = std::string(to_string(f));
  op.scalar = scalar;
  op.inputs = {view_of(s)};
  auto t = compute(std::move(op), s.rows, s.cols, dtype::f32, cost_of(f), uint64_t{s.rows} * s.cols,
                   producers({&s}));
  s.users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::binary(math_fn f, const tl::tensor& a, const tl::tensor& b) {
  if (arity(f) != 2)
    fail(fmt::format("{} is not a binary op", to_string(f)));
  return where_like(f, {&a, &b});
}

tl::tensor kernel_context::where(const tl::tensor& cond, const tl::tensor& a, const tl::tensor& b) {
  return where_like(math_fn::where, {&cond, &a, &b});
}

tl::tensor kernel_context::where_like(math_fn f, std::vector<const tl::tensor*> in) {
  const std::string name(to_string(f));
  uint32_t rows = 1, cols = 1;
  for (const auto* t : in) {
    const auto& s = operand(*t, name);
    rows = std::max(rows, s.rows);
    cols = std::max(cols, s.cols);
  }
  op_record op;
  op.kind = op_kind::math;
  op.fn = f;
  op.op_name = name;
  for (const auto* t : in) {
    const auto& s = *t->raw();
    if ((s.rows != rows && s.rows != 1) || (s.cols != cols && s.cols != 1))
      fail(fmt::format("{}: a {}x{} operand does not broadcast to {}x{}", name, s.rows, s.cols,
                       rows, cols));
    op.inputs.push_back(view_of(s));
  }
  std::vector<uint64_t> deps;
  for (const auto* x : in)
    for (uint64_t d : producers({x->raw()}))
      if (std::find(deps.begin(), deps.end(), d) == deps.end())
        deps.push_back(d);
  auto t = compute(std::move(op), rows, cols, dtype::f32, cost_of(f), uint64_t{rows} * cols,
                   std::move(deps));
  for (const auto* x : in)
    x->raw()->users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::reduce(math_fn f, const tl::tensor& x, int axis) {
  const auto& s = operand(x, std::string(to_string(f)));
  if (!is_reduction(f))
    fail(fmt::format("{} is not a reduction (sum, row_max, row_min)", to_string(f)));
  if (axis != 0 && axis != 1)
    fail(fmt::format("{} along axis {}: a 2-D tensor has axes 0 and 1", to_string(f), axis));
  op_record op;
  op.kind = op_kind::math;
  op.fn = f;
  op.op_name = std::string(to_string(f));
  op.axis = axis;
  op.inputs = {view_of(s)};
  auto t = compute(std::move(op), axis == 1 ? s.rows : 1, axis == 1 ? 1 : s.cols, dtype::f32,
                   cost_of(f), uint64_t{s.rows} * s.cols, producers({&s}));
  s.users.push_back(t.raw()->users.back());
  return t;
}

tl::tensor kernel_context::cast(const tl::tensor& x, dtype to) {
  const auto& s = operand(x, "cast");
  op_record op;
  op.kind = op_kind::math;
  op.fn = math_fn::cast;
  op.op_name = "cast";
  op.inputs = {view_of(s)};
  auto t = compute(std::move(op), s.rows, s.cols, to, math_op::add, uint64_t{s.rows} * s.cols,
                   producers({&s}));
  s.users.push_back(t.raw()->users.back());
  return t;
}

void kernel_context::wait(tl::handle h) {
  suspend_until([this, id = h.command] { return port_.done(id); },
                fmt::format("waits for command {}", h.command), wait_kind::handle, h.command);
}

void kernel_context::wait_all() {
  suspend_until([this] { return port_.outstanding() == 0; },
                fmt::format("waits for all its commands ({} outstanding)", port_.outstanding()),
                wait_kind::handle, 0);
}

} // namespace kb
