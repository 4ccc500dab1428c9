#pragma once
// A kernel's faults end the run with a message, not a bare signal death
// (DESIGN §5 "Kernels are contained", ADR-0042). While a kernel's own code
// runs on a thread (its fiber resumed, outside any tl:: call), that
// thread's `kernel_frame` is current:
//
// - SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT are caught on the thread's
//   alternate stack (so a stack overflow into the fiber's guard page is
//   caught too). The handler writes one line naming the kernel, PE,
//   program, signal and the last tl:: call, removes the run's temporaries
//   (signal_cleanup::remove_now) and ends the process with exit 1.
// - `exit` and `quick_exit` called from kernel code do the same (an atexit
//   and an at_quick_exit hook); `abort` is SIGABRT.
// - A fault anywhere else (kernbench's own code, a tl:: call, a thread the
//   kernel started) gets the action that was there before (the default:
//   a core dump is worth more than a message there).
//
// Everything the handlers do is async-signal-safe: the frame's text is
// formatted when the kernel starts (or changes program), never in them.

#include <cstddef>
#include <cstdint>

namespace kb {

/// What the handlers read of the kernel running on a thread; owned by its
/// kernel_context, plain data.
struct kernel_frame {
  char who[256] = {};               ///< "kernel k on sip0.cube0.pe3 (program 5)"
  const char* last_call = nullptr;  ///< "tl.load" (a literal); null: none yet
  bool in_runtime = false;          ///< inside a tl:: call: kernbench's code
  uintptr_t guard_begin = 0;        ///< the fiber stack's guard page
  uintptr_t guard_end = 0;
  size_t stack_kib = 0;             ///< the fiber's stack, for the overflow message
};

namespace kernel_fault {

/// The handlers (once per process) and this thread's alternate stack (once
/// per thread): called before a kernel's fiber is resumed on a thread.
void prepare_thread();

/// The frame of the kernel whose code runs on this thread; null: none.
kernel_frame* current();

/// For its lifetime, `f` is the current frame of this thread.
class running {
public:
  explicit running(kernel_frame& f);
  ~running();
  running(const running&) = delete;
  running& operator=(const running&) = delete;

private:
  kernel_frame* saved_;
};

/// A tl:: call (`call`, e.g. "tl.load") of the kernel `f` from a thread that
/// is not running that kernel: says so, naming the kernel, removes the
/// temporaries and ends the process with exit 1. Another thread cannot be
/// let into the kernel's state, and an exception thrown on it would end
/// the process without a word.
[[noreturn]] void foreign_thread(const kernel_frame& f, const char* call);

} // namespace kernel_fault
} // namespace kb
