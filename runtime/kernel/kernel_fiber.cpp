#include "runtime/kernel/kernel_fiber.hpp"

// Sanitizer builds switch stacks through ucontext with AddressSanitizer's
// fiber annotations (Boost.Context's BOOST_USE_ASAN; CMakeLists sets both
// for this file only), so ASan follows the kernel's stack; plain builds use
// the assembler fcontext. Only this file includes Boost.Context.
#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include <stdexcept>
#include <utility>

namespace kb {

namespace ctx = boost::context;

struct kernel_fiber::impl {
  std::function<void()> body;
  ctx::fiber kernel; ///< the kernel's context while it is suspended
  ctx::fiber caller; ///< the actor's context while the kernel runs
  std::exception_ptr error;
  bool started = false;
  bool running = false;
  bool finished = false;
};

kernel_fiber::kernel_fiber(std::function<void()> body, size_t stack_bytes)
  : impl_(std::make_unique<impl>()) {
  impl_->body = std::move(body);
  impl* self = impl_.get();
  impl_->kernel = ctx::fiber(std::allocator_arg, ctx::protected_fixedsize_stack(stack_bytes),
                             [self](ctx::fiber&& caller) {
                               self->caller = std::move(caller);
                               try {
                                 self->body();
                               } catch (const ctx::detail::forced_unwind&) {
                                 throw; // a suspended kernel being destroyed: unwind on
                               } catch (...) {
                                 self->error = std::current_exception();
                               }
                               self->finished = true;
                               return std::move(self->caller);
                             });
}

kernel_fiber::~kernel_fiber() = default; // a suspended kernel's stack unwinds here

void kernel_fiber::resume() {
  if (impl_->finished)
    throw std::logic_error("kernel_fiber: resumed after the kernel ended");
  if (impl_->running)
    throw std::logic_error("kernel_fiber: resumed from inside the kernel");
  impl_->running = true;
  impl_->started = true;
  impl_->kernel = std::move(impl_->kernel).resume();
  impl_->running = false;
  if (impl_->error) {
    auto e = std::exchange(impl_->error, nullptr);
    std::rethrow_exception(e);
  }
}

void kernel_fiber::suspend() {
  if (!impl_->running)
    throw std::logic_error("kernel_fiber: suspend outside the kernel");
  impl_->caller = std::move(impl_->caller).resume();
}

bool kernel_fiber::finished() const { return impl_->finished; }
bool kernel_fiber::running() const { return impl_->running; }

} // namespace kb
