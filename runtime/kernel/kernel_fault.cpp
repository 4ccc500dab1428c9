#include "runtime/kernel/kernel_fault.hpp"

#include "runtime/io/signal_cleanup.hpp"

#include <fmt/format.h>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace kb::kernel_fault {

namespace {

thread_local kernel_frame* frame_now = nullptr;

constexpr std::array<int, 5> fault_signals{SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
/// The actions before ours, by signal (what a fault outside kernel code gets).
std::array<struct sigaction, 65> previous{};
/// One report, from the first thread that gets here; any other waits for
/// the _exit.
std::atomic<bool> reporting{false};

/// Below the guard page, a fault this close still counts as the overflow
/// (a frame larger than a page jumps past its start).
constexpr uintptr_t guard_slack = 64 * 1024;

/// A line built without allocating (async-signal-safe).
class line {
public:
  line& add(const char* s) {
    while (s && *s && n_ + 1 < sizeof buf_)
      buf_[n_++] = *s++;
    return *this;
  }
  line& dec(uint64_t v) {
    char d[24];
    int i = 0;
    do {
      d[i++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (i > 0 && n_ + 1 < sizeof buf_)
      buf_[n_++] = d[--i];
    return *this;
  }
  line& hex(uint64_t v) {
    add("0x");
    char d[16];
    int i = 0;
    do {
      d[i++] = "0123456789abcdef"[v & 0xf];
      v >>= 4;
    } while (v != 0);
    while (i > 0 && n_ + 1 < sizeof buf_)
      buf_[n_++] = d[--i];
    return *this;
  }
  void write() const {
    size_t done = 0;
    while (done < n_) {
      const ssize_t w = ::write(STDERR_FILENO, buf_ + done, n_ - done);
      if (w <= 0)
        break;
      done += static_cast<size_t>(w);
    }
  }

private:
  char buf_[1536] = {};
  size_t n_ = 0;
};

/// Writes `what` after the frame's names and the last call, removes the
/// run's temporaries and ends the process (exit 1).
[[noreturn]] void report(const kernel_frame& f, const line& what) {
  if (reporting.exchange(true))
    for (;;)
      ::pause();
  line l;
  l.add("kernbench: error: ").add(f.who);
  l.write();
  what.write();
  line tail;
  if (f.last_call)
    tail.add("; its last tl:: call was ").add(f.last_call).add("\n");
  else
    tail.add("; it had made no tl:: call\n");
  tail.write();
  signal_cleanup::remove_now();
  ::_exit(1);
}

const char* name_of(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGABRT:
    return "SIGABRT";
  default:
    return "a signal";
  }
}

/// Not the kernel's: the action that was there before ours. A fault the
/// CPU raised (si_code > 0) happens again when the handler returns, now
/// with that action; one sent by raise or kill is sent again.
void pass_on(int sig, const siginfo_t* info) {
  ::sigaction(sig, &previous[static_cast<size_t>(sig)], nullptr);
  if (info->si_code <= 0 || sig == SIGABRT)
    ::raise(sig);
}

void on_fault(int sig, siginfo_t* info, void*) {
  kernel_frame* f = frame_now;
  const auto at = reinterpret_cast<uintptr_t>(info->si_addr);
  const bool overflow = f != nullptr && (sig == SIGSEGV || sig == SIGBUS) && f->guard_end != 0 &&
                        at + guard_slack >= f->guard_begin && at < f->guard_end;
  if (f == nullptr || (f->in_runtime && !overflow)) {
    pass_on(sig, info);
    return;
  }
  line what;
  if (overflow) {
    what.add(" overflowed its ").dec(f->stack_kib).add(" KiB stack (").add(name_of(sig));
    what.add(" at ").hex(at).add(": deep recursion or large locals; --kernel-stack KiB gives "
                                 "each kernel a larger one)");
  } else if (sig == SIGABRT) {
    what.add(" called abort() in its own code (SIGABRT: abort, a failed assert or "
             "std::terminate)");
  } else {
    what.add(" crashed in its own code: ").add(name_of(sig));
    if (sig == SIGSEGV)
      what.add(" (invalid memory access at ").hex(at).add(")");
    else if (sig == SIGBUS)
      what.add(" (bus error at ").hex(at).add(")");
    else if (sig == SIGFPE)
      what.add(" (arithmetic fault, e.g. an integer division by zero)");
    else
      what.add(" (illegal instruction)");
  }
  report(*f, what);
}

/// exit() or quick_exit() called from a kernel's own code.
void on_exit_call() {
  const kernel_frame* f = frame_now;
  if (f == nullptr || f->in_runtime)
    return;
  line what;
  what.add(" called exit() or quick_exit() in its own code (a kernel must return; the run "
           "cannot end from inside it)");
  report(*f, what);
}

void install() {
  for (int sig : fault_signals) {
    struct sigaction sa {};
    sa.sa_sigaction = on_fault;
    ::sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ::sigaction(sig, &sa, &previous[static_cast<size_t>(sig)]);
  }
  std::atexit(on_exit_call);
  std::at_quick_exit(on_exit_call);
}

/// This thread's alternate signal stack (a stack overflow leaves no room on
/// the faulting one), unless it has one already.
struct alt_stack {
  void* mem = nullptr;
  size_t size = 0;
  alt_stack() {
    stack_t old {};
    if (::sigaltstack(nullptr, &old) == 0 && !(old.ss_flags & SS_DISABLE) &&
        old.ss_size >= 32 * 1024)
      return;
    size = 64 * 1024 + static_cast<size_t>(::sysconf(_SC_SIGSTKSZ));
    mem = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
      mem = nullptr;
      return; // then a stack overflow is a bare SIGSEGV, as before
    }
    stack_t s {};
    s.ss_sp = mem;
    s.ss_size = size;
    ::sigaltstack(&s, nullptr);
  }
  ~alt_stack() {
    if (!mem)
      return;
    stack_t off {};
    off.ss_flags = SS_DISABLE;
    ::sigaltstack(&off, nullptr);
    ::munmap(mem, size);
  }
  alt_stack(const alt_stack&) = delete;
  alt_stack& operator=(const alt_stack&) = delete;
};

} // namespace

void prepare_thread() {
  static std::once_flag once;
  std::call_once(once, install);
  thread_local alt_stack alt;
  (void)alt;
}

kernel_frame* current() { return frame_now; }

running::running(kernel_frame& f) : saved_(frame_now) { frame_now = &f; }
running::~running() { frame_now = saved_; }

void foreign_thread(const kernel_frame& f, const char* call) {
  const std::string text = fmt::format(
    ": {} was called from a thread that is not the kernel's own (a thread it started?); a "
    "kernel's tl:: calls must come from its body, on its own fiber",
    call);
  line what;
  what.add(text.c_str());
  report(f, what);
}

} // namespace kb::kernel_fault
