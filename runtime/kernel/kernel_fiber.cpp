#include "runtime/kernel/kernel_fiber.hpp"

// Only this file includes Boost.Context (its fcontext, as Debian builds it).
// Under AddressSanitizer every switch is announced to it
// (__sanitizer_start/finish_switch_fiber, the sanitizer's public fiber API),
// so that it checks the kernel's stack as a stack and not as stray memory.
#include <boost/context/fiber.hpp>
#include <boost/context/preallocated.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include <fmt/format.h>

#include <atomic>
#include <fstream>
#include <new>
#include <stdexcept>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define KB_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KB_ASAN_FIBERS 1
#endif
#endif
#ifdef KB_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif

namespace kb {

namespace ctx = boost::context;

namespace {
/// Thrown inside a suspended kernel whose fiber is destroyed, to unwind
/// its stack (its locals' destructors run) before the stack goes.
struct kernel_cancelled {};

std::atomic<size_t> held_stacks{0};
std::atomic<size_t> stack_default{512 * 1024};
std::atomic<size_t> limit_override{0}; ///< the override + 1; 0: none

/// vm.max_map_count, or Linux's default where it cannot be read.
size_t max_map_count() {
  static const size_t n = [] {
    size_t v = 0;
    std::ifstream f("/proc/sys/vm/max_map_count");
    return f >> v && v > 0 ? v : size_t{65530};
  }();
  return n;
}

/// Maps left to the rest of the process (malloc's large blocks and arenas,
/// the libraries, CAF's threads' stacks).
constexpr size_t maps_for_the_rest = 8192;

/// Boost's guarded stack, counted while held (deallocated when the kernel
/// returns or is unwound).
struct counted_stack {
  ctx::protected_fixedsize_stack inner;
  size_t bytes;

  ctx::stack_context allocate() {
    const size_t limit = kernel_fiber::stack_limit();
    if (held_stacks.fetch_add(1) >= limit) {
      held_stacks.fetch_sub(1);
      throw std::runtime_error(fmt::format(
        "no kernel stack left: this process already holds {} kernel stacks, the most its "
        "memory-map limit leaves room for (vm.max_map_count {}, two maps a stack); split the "
        "run over processes (--procs) so that each runs fewer kernels at once, or raise "
        "vm.max_map_count",
        limit, max_map_count()));
    }
    try {
      return inner.allocate();
    } catch (const std::bad_alloc&) {
      held_stacks.fetch_sub(1);
      throw std::runtime_error(fmt::format("cannot map a {} KiB kernel stack ({} held)",
                                           bytes / 1024,
                                           held_stacks.load()));
    }
  }
  void deallocate(ctx::stack_context& sc) noexcept {
    inner.deallocate(sc);
    held_stacks.fetch_sub(1);
  }
};
} // namespace

size_t kernel_fiber::stack_limit() {
  if (const size_t n = limit_override.load())
    return n - 1;
  const size_t maps = max_map_count();
  return maps > 2 * maps_for_the_rest ? (maps - maps_for_the_rest) / 2 : maps / 4;
}

size_t kernel_fiber::stacks_held() { return held_stacks.load(); }

void kernel_fiber::set_stack_limit(std::optional<size_t> n) {
  limit_override.store(n ? *n + 1 : 0);
}

struct kernel_fiber::impl {
  std::function<void()> body;
  ctx::fiber kernel; ///< the kernel's context while it is suspended
  ctx::fiber caller; ///< the actor's context while the kernel runs
  std::exception_ptr error;
  bool started = false;
  bool running = false;
  bool finished = false;
  bool cancelled = false; ///< being destroyed: unwind the kernel's stack
  // The two stacks, for the sanitizer's switch annotations.
  const void* kernel_bottom = nullptr;
  size_t kernel_size = 0;
  const void* caller_bottom = nullptr;
  size_t caller_size = 0;
  void* fake_stack = nullptr; ///< the switching side's fake stack (ASan)

  /// About to leave the actor's stack for the kernel's.
  void to_kernel() {
#ifdef KB_ASAN_FIBERS
    __sanitizer_start_switch_fiber(&fake_stack, kernel_bottom, kernel_size);
#endif
  }
  /// Back on the actor's stack.
  void back_from_kernel() {
#ifdef KB_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
  }
  /// On the kernel's stack, having come from the actor's (whose bounds,
  /// which change with the thread that resumed us, are noted).
  void arrived_in_kernel(void* saved) {
#ifdef KB_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(saved, &caller_bottom, &caller_size);
#else
    (void)saved;
#endif
  }
  /// About to leave the kernel's stack for the actor's; `saved` keeps the
  /// kernel's fake stack (null: the kernel is done and its stack dies).
  void to_caller(void** saved) {
#ifdef KB_ASAN_FIBERS
    __sanitizer_start_switch_fiber(saved, caller_bottom, caller_size);
#else
    (void)saved;
#endif
  }
};

kernel_fiber::kernel_fiber(std::function<void()> body, size_t stack_bytes)
  : impl_(std::make_unique<impl>()) {
  impl_->body = std::move(body);
  impl* self = impl_.get();
  counted_stack alloc{ctx::protected_fixedsize_stack(stack_bytes), stack_bytes};
  const ctx::stack_context sc = alloc.allocate();
  self->kernel_bottom = static_cast<const char*>(sc.sp) - sc.size;
  self->kernel_size = sc.size;
  impl_->kernel =
    ctx::fiber(std::allocator_arg, ctx::preallocated(sc.sp, sc.size, sc), alloc,
               [self](ctx::fiber&& caller) {
                 self->arrived_in_kernel(nullptr);
                 self->caller = std::move(caller);
                 try {
                   if (!self->cancelled)
                     self->body();
                 } catch (const kernel_cancelled&) {
                   // destroyed while suspended: its stack is unwound
                 } catch (...) {
                   self->error = std::current_exception();
                 }
                 self->finished = true;
                 self->to_caller(nullptr);
                 return std::move(self->caller);
               });
}

kernel_fiber::~kernel_fiber() {
  if (!impl_ || impl_->finished || impl_->running || !impl_->kernel)
    return;
  // Never started or suspended: run it to its end through the same
  // announced switches as always; a suspended kernel unwinds its stack
  // (kernel_cancelled), one never started does not run at all. (Boost's own
  // forced unwinding would throw on a stack AddressSanitizer was not told of.)
  impl_->cancelled = true;
  try {
    resume();
  } catch (...) {
    // the kernel threw while unwinding: nothing is left to report it to
  }
}

void kernel_fiber::resume() {
  if (impl_->finished)
    throw std::logic_error("kernel_fiber: resumed after the kernel ended");
  if (impl_->running)
    throw std::logic_error("kernel_fiber: resumed from inside the kernel");
  impl_->running = true;
  impl_->started = true;
  impl_->to_kernel();
  impl_->kernel = std::move(impl_->kernel).resume();
  impl_->back_from_kernel();
  impl_->running = false;
  if (impl_->error) {
    auto e = std::exchange(impl_->error, nullptr);
    std::rethrow_exception(e);
  }
}

void kernel_fiber::suspend() {
  if (!impl_->running)
    throw std::logic_error("kernel_fiber: suspend outside the kernel");
  void* saved = nullptr;
  impl_->to_caller(&saved);
  impl_->caller = std::move(impl_->caller).resume();
  impl_->arrived_in_kernel(saved);
  if (impl_->cancelled)
    throw kernel_cancelled{};
}

size_t kernel_fiber::default_stack_bytes() { return stack_default.load(); }
void kernel_fiber::set_default_stack_bytes(size_t bytes) { stack_default.store(bytes); }

// Boost's protected_fixedsize_stack puts one guard page at the low end of
// the mapping it reports (kernel_bottom).
uintptr_t kernel_fiber::guard_begin() const {
  return reinterpret_cast<uintptr_t>(impl_->kernel_bottom);
}
uintptr_t kernel_fiber::guard_end() const {
  return guard_begin() + ctx::stack_traits::page_size();
}

bool kernel_fiber::finished() const { return impl_->finished; }
bool kernel_fiber::running() const { return impl_->running; }

} // namespace kb
