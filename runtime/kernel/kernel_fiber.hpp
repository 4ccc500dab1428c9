#pragma once
// A kernel's own stack (DESIGN §5, seed ADR-0020 D3): the kernel runs as a plain
// function on a fiber (Boost.Context) inside its PE_CPU actor. `resume` runs
// it until it suspends (a load waits for its data, a wait for its command)
// or returns; `suspend`, called from inside, hands control back. An
// exception that leaves the kernel is caught on the fiber and rethrown by
// `resume`, on the actor's own stack.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>

namespace kb {

class kernel_fiber {
public:
  /// `stack_bytes`: the kernel's stack (guard page below it: an overflow
  /// faults instead of corrupting the simulator, and kernel_fault reports
  /// it).
  explicit kernel_fiber(std::function<void()> body, size_t stack_bytes = default_stack_bytes());
  ~kernel_fiber();
  kernel_fiber(const kernel_fiber&) = delete;
  kernel_fiber& operator=(const kernel_fiber&) = delete;

  /// Runs the kernel until it suspends or ends; rethrows what it threw.
  void resume();
  /// From inside the kernel: back to the caller of `resume`.
  void suspend();

  bool finished() const;
  bool running() const;

  /// The guard page below the stack: [guard_begin, guard_end).
  uintptr_t guard_begin() const;
  uintptr_t guard_end() const;

  /// The stack a kernel gets (`run --kernel-stack KiB`; 512 KiB unless set).
  static size_t default_stack_bytes();
  static void set_default_stack_bytes(size_t bytes);

  /// The most kernel stacks this process holds at once. Each is two memory
  /// maps (the stack and its guard page) and a process may hold
  /// vm.max_map_count maps in all (65,530 by default): past the limit a
  /// kernel fails to start, naming it, instead of leaving malloc no map to
  /// take (every allocation of the run would then fail).
  static size_t stack_limit();
  /// Stacks held now (kernels started that have not returned).
  static size_t stacks_held();
  /// Replaces stack_limit (nullopt: the system's again); for tests.
  static void set_stack_limit(std::optional<size_t> n);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// For its lifetime, room for `more` kernel stacks beyond those held now;
/// then the system's limit again (tests).
class scoped_stack_limit {
public:
  explicit scoped_stack_limit(size_t more) {
    kernel_fiber::set_stack_limit(kernel_fiber::stacks_held() + more);
  }
  ~scoped_stack_limit() { kernel_fiber::set_stack_limit(std::nullopt); }
  scoped_stack_limit(const scoped_stack_limit&) = delete;
  scoped_stack_limit& operator=(const scoped_stack_limit&) = delete;
};

} // namespace kb
