#include "runtime/kernel/kernel_fiber.hpp"

// Only this file includes Boost.Context (its fcontext, as Debian builds it).
// Under AddressSanitizer every switch is announced to it
// (__sanitizer_start/finish_switch_fiber, the sanitizer's public fiber API),
// so that it checks the kernel's stack as a stack and not as stray memory.
#include <boost/context/fiber.hpp>
#include <boost/context/preallocated.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

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
} // namespace

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
  ctx::protected_fixedsize_stack alloc(stack_bytes);
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

bool kernel_fiber::finished() const { return impl_->finished; }
bool kernel_fiber::running() const { return impl_->running; }

} // namespace kb
