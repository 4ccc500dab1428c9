#include "runtime/kernel/kernel_context.hpp"

#include "runtime/kernel/tensor_state.hpp"
#include "runtime/address.hpp"
#include "runtime/kernel/placed_ranges.hpp"
#include "runtime/machine/fabric_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

kernel_context::kernel_context(kernel_site site, kernel_port& port)
  : site_(std::move(site)), port_(port),
    hazards_([p = &port_](uint64_t id) { return p->done(id); }),
    pool_(std::make_shared<tcm_pool>(site_.tcm_bytes, site_.tcm_reserved,
                                     [p = &port_](uint64_t id) { return p->done(id); })) {
  // The host's TCM tensors hold the start of AllocatableTCM (the host laid
  // them out as this first allocation of a fresh pool falls).
  if (site_.host_tcm_bytes > 0 && !pool_->allocate(site_.host_tcm_bytes))
    throw std::invalid_argument(fmt::format(
      "{}: the host's tensors take {} B of its TCM, but {}", site_.pe, site_.host_tcm_bytes,
      pool_->allocator().describe_free()));
}

kernel_context::~kernel_context() = default;

void kernel_context::fail(const std::string& what) const {
  throw tl::kernel_error(
    fmt::format("kernel {} on {} ({}): {}", site_.kernel, site_.pe, program_text(), what));
}

kernel_context::tl_call::tl_call(const kernel_context& k, const char* name, bool noted)
  : frame_(k.frame_), outer_(k.frame_.in_runtime) {
  if (kernel_fault::current() != &frame_)
    kernel_fault::foreign_thread(frame_, name);
  if (!outer_ && noted)
    frame_.last_call = name;
  frame_.in_runtime = true;
}

std::string kernel_context::program_text() const {
  const auto& id = site_.program_id;
  const auto& n = site_.num_programs;
  return n[1] == 1 && n[2] == 1 ? fmt::format("program {}", id[0])
                                : fmt::format("program ({}, {}, {})", id[0], id[1], id[2]);
}

void kernel_context::name_frame() {
  const std::string who =
    fmt::format("kernel {} on {} ({})", site_.kernel, site_.pe, program_text());
  owner_ = std::make_shared<const std::string>(who);
  const size_t len = std::min(who.size(), sizeof frame_.who - 1);
  std::copy_n(who.data(), len, frame_.who);
  frame_.who[len] = 0;
}

void kernel_context::start(kernel_fn fn) {
  fiber_ = std::make_unique<kernel_fiber>([this, fn = std::move(fn)] { fn(*this); });
  watch_ = std::make_unique<kernel_watch>(site_.pe, site_.kernel);
  name_frame();
  frame_.guard_begin = fiber_->guard_begin();
  frame_.guard_end = fiber_->guard_end();
  frame_.stack_kib = kernel_fiber::default_stack_bytes() / 1024;
  resume();
}

void kernel_context::run_commands(std::span<const pe_command> commands) {
  watch_ = std::make_unique<kernel_watch>(site_.pe, site_.kernel);
  watch_->running();
  // The driver is kernbench's own code on the actor's thread: its tl::
  // calls come from there, and a fault in them is kernbench's (a crash).
  name_frame();
  frame_.in_runtime = true;
  const kernel_fault::running here(frame_);
  try {
    for (const pe_command& c : commands)
      issue_command(c);
  } catch (...) {
    watch_->returned();
    throw;
  }
  // wait_all, with the same notices to the port as a kernel's.
  const auto all_done = [this] { return port_.outstanding() == 0; };
  if (all_done()) {
    commands_done_ = true;
    watch_->returned();
    return;
  }
  ready_ = all_done;
  why_ = all_waiting();
  port_.blocked(wait_kind::handle, 0);
  watch_->waiting(why_);
}

void kernel_context::resume() {
  watch_->running();
  kernel_fault::prepare_thread();
  try {
    const kernel_fault::running here(frame_);
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
  if (!ready_ || (fiber_ && (fiber_->finished() || fiber_->running())) || !ready_())
    return;
  ready_ = nullptr;
  why_.clear();
  if (fiber_) {
    resume();
    return;
  }
  // run_commands: its wait for all ends, and so does the driver.
  watch_->running();
  port_.resumed();
  commands_done_ = true;
  watch_->returned();
}

std::string kernel_context::waiting_for() const { return ready_ ? why_ : std::string(); }

void kernel_context::suspend_until(std::function<bool()> ready, std::string why, wait_kind kind,
                                   uint64_t command) {
  if (ready())
    return;
  if (!fiber_) // run_commands issues without waiting (issue_command never waits)
    throw std::logic_error(fmt::format("{}: the built-in driver cannot wait for {}", site_.pe, why));
  ready_ = std::move(ready);
  why_ = std::move(why);
  port_.blocked(kind, command);
  fiber_->suspend();
  port_.resumed();
}

void kernel_context::set_program(uint32_t linear) {
  const auto& n = site_.num_programs;
  site_.program_id = {linear % n[0], linear / n[0] % n[1], linear / n[0] / n[1]};
  name_frame();
  port_.program_begun(linear);
}

void kernel_context::end_programs() { port_.program_begun(kernel_port::no_program); }

uint32_t kernel_context::program_id(unsigned axis) const {
  const tl_call call(*this, "tl.program_id", false);
  if (axis > 2)
    fail(fmt::format("program_id({}): the grid has axes 0, 1 and 2", axis));
  return site_.program_id[axis];
}

uint32_t kernel_context::num_programs(unsigned axis) const {
  const tl_call call(*this, "tl.num_programs", false);
  if (axis > 2)
    fail(fmt::format("num_programs({}): the grid has axes 0, 1 and 2", axis));
  return site_.num_programs[axis];
}

void kernel_context::check_tensor(uint64_t address, uint64_t span, bool writability,
                                  const std::string& what, const tl::ptr& from) const {
  const tl::tensor_extent& t = *from.tensor;
  const uint32_t e = dtype_bytes(from.type);
  // The elements [first, first + count) of the tensor, from the pointer's
  // own element number (the host's pointers start at 0; `+` keeps it).
  // A tensor bound to rows of a bigger one counts its elements from t.first.
  const uint64_t count = (span + e - 1) / e;
  const uint64_t at = from.index + (address - from.address) / e;
  const uint64_t first = at >= t.first ? at - t.first : t.elements;
  const bool outside = address < from.address || at < t.first || first >= t.elements ||
                       count > t.elements - first;
  if (!writability && outside)
    fail(fmt::format("{}: elements [{}, {}) of tensor {} ({}x{}, {} elements) are outside it",
                     what, first, first + count, t.name, t.rows, t.cols, t.elements));
  if (writability && !t.writable)
    fail(fmt::format("{}: writes elements [{}, {}) of tensor {}, an input; a kernel writes "
                     "only its outputs and scratch tensors, or an input it declares in-out "
                     "(kernel_tensor::inout)",
                     what, first, first + count, t.name));
}

void kernel_context::check_range(uint64_t address, uint64_t span, dtype type, bool write,
                                 const std::string& what, const tl::ptr& from) const {
  const uint32_t e = dtype_bytes(type);
  if (address % e != 0)
    fail(fmt::format("{}: address {} is not aligned to its {} elements ({} B)", what,
                     describe_address(address), to_string(type), e));
  if (span == 0)
    fail(fmt::format("{}: an empty block", what));
  if (from.tensor)
    check_tensor(address, span, false, what, from);
  if (!site_.fabric)
    fail("the PE was built without the machine's fabric map (build it with build_machine)");
  const uint64_t last = address + (span - 1);
  const auto owner = site_.fabric->memory_of(address);
  if (!owner)
    fail(fmt::format("{}: address {} is outside every memory of the machine", what,
                     describe_address(address)));
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
                     describe_address(address), span, site_.fabric->name(*owner),
                     size, describe_address(last),
                     last_owner && *last_owner != *owner
                       ? "in " + site_.fabric->name(*last_owner)
                       : std::string("in no memory")));
  }
  if (site_.placed)
    if (std::string why = site_.placed->check(address, span, write); !why.empty())
      fail(fmt::format("{}: {}", what, why));
  // Last: on a replicated input the placed ranges' word is the more precise.
  if (from.tensor && write)
    check_tensor(address, span, true, what, from);
}

std::shared_ptr<tl::tensor::state> kernel_context::allocate(uint32_t rows, uint32_t cols,
                                                            dtype type) {
  const uint64_t bytes = uint64_t{rows} * cols * dtype_bytes(type);
  auto offset = pool_->allocate(bytes);
  while (!offset && pool_->deferred() > 0) {
    // Blocks of dropped tensors wait for their commands: wait for those.
    suspend_until(
      [this] { return pool_->sweep(); },
      fmt::format("waits for commands on dropped tensors to free TCM for a {} B tensor", bytes),
      wait_kind::tcm, 0);
    offset = pool_->allocate(bytes);
  }
  if (!offset)
    fail(fmt::format("TCM overflow: a {}x{} {} tensor needs {} B, but {}", rows, cols,
                     to_string(type), bytes, pool_->allocator().describe_free()));
  auto s = std::make_shared<tl::tensor::state>();
  s->rows = rows;
  s->cols = cols;
  s->type = type;
  s->address =
    global_address{mem_space::tcm, site_.sip, site_.cube, site_.index, *offset}.encode();
  s->owner = owner_;
  s->release = [pool = pool_, at = *offset](std::vector<uint64_t> users) {
    pool->release(at, std::move(users));
  };
  return s;
}

void kernel_context::wait(tl::handle h) {
  const tl_call call(*this, "tl.wait");
  if (h.command == 0) // a masked store with no live element: nothing to wait for
    return;
  // A masked store of several DMA commands waits for them all (kernel_masked.cpp).
  std::vector<uint64_t> ids{h.command};
  for (const auto& [last, others] : joined_)
    if (last == h.command)
      ids.insert(ids.end(), others.begin(), others.end());
  suspend_until([this, ids] {
                  return std::all_of(ids.begin(), ids.end(),
                                     [this](uint64_t id) { return port_.done(id); });
                },
                fmt::format("waits for command {}", h.command), wait_kind::handle, h.command);
}

std::string kernel_context::all_waiting() const {
  return fmt::format("waits for all its commands ({} outstanding)", port_.outstanding());
}

void kernel_context::wait_all() {
  const tl_call call(*this, "tl.wait_all");
  suspend_until([this] { return port_.outstanding() == 0; }, all_waiting(), wait_kind::handle, 0);
}

} // namespace kb
