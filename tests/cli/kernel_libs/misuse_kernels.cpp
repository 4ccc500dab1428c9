// A kernel library of kernels that misuse kernbench (tests/cli/
// kernel_misuse_test.cpp): `misuse --arg how=...` makes its last program
//   throw_int     throw 42 after a load,
//   throw_string  throw "no luck" (a const char*) after a load,
//   spin          loop forever without a tl:: call (the stall watchdog),
//   poll          load a flag nothing ever sets, forever (--max-sim-time),
//   cross_read    load what program 0 stores from a compute result and
//                 read an element of it: Phase 1 has no data for it,
//   none          nothing wrong,
// and, contained as faults (ADR-0042):
//   segv          write through a null pointer,
//   fpe           divide an integer by zero,
//   overflow      recurse until its stack overflows,
//   abort         call std::abort(),
//   exit0         call std::exit(0),
//   quick_exit    call std::quick_exit(0),
//   thread        call tl:: from a std::thread it starts,
//   load_past     load a row 16 rows past the end of x (1 x 64),
//   store_past    store a row just past the end of y,
//   load_far      load x + 2^42 bytes,
//   store_input   store into x, an input,
//   store_inout   store into io, an input declared in-out (no error),
//   ref_segv      nothing wrong in the kernel; its reference (run by
//                 --verify after the run, outside any kernel) writes through
//                 a null pointer: a crash that must stay a crash.
// Every other program loads a row and returns.

#include "kernels/registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace {

using namespace kb;

const char* const hows[] = {"none", "throw_int", "throw_string", "spin", "poll", "cross_read",
                            "segv", "fpe", "overflow", "abort", "exit0", "quick_exit",
                            "thread", "ref_segv", "load_past", "store_past", "load_far",
                            "store_input", "store_inout"};

/// Never reached: a base case the compiler cannot see through.
volatile uint64_t bottom = ~uint64_t{0};

/// Recurses until the stack runs out; the volatile array keeps each frame.
[[gnu::noinline]] uint64_t deeper(uint64_t n) {
  if (n == bottom)
    return 0;
  volatile char frame[256];
  frame[n % sizeof frame] = static_cast<char>(n);
  return deeper(n + 1) + frame[(n + 1) % sizeof frame];
}

/// Through volatile pointers, so that the compiler keeps the store (it
/// drops a plain store through a null pointer).
void write_null() {
  volatile int* volatile p = nullptr;
  *p = 1;
}

kernel_def misuse_kernel() {
  kernel_def d;
  d.name = "misuse";
  d.description = "its last program misbehaves as --arg how says (a test kernel library)";
  d.args = {{"how", "throw_int",
             "none, throw_int, throw_string, spin, poll, cross_read, segv, fpe, overflow, abort, "
             "exit0, quick_exit, thread, ref_segv, load_past, store_past, load_far, store_input "
             "or store_inout"},
            {"programs", "4", "the grid"}};
  d.prepare = [](const kernel_args& a) {
    const std::string how = a.text("how");
    if (std::find(std::begin(hows), std::end(hows), how) == std::end(hows))
      throw std::invalid_argument("--arg how=" + how + ": not a misuse this kernel knows");
    constexpr uint32_t cols = 64;
    kernel_launch l;
    l.grid = {a.u32("programs"), 1, 1};
    l.tensors = {{"x", 1, cols, dtype::f32},
                 {"flag", 1, 1, dtype::f32, false, 0, 0},
                 {"y", 1, cols, dtype::f32, true}};
    kernel_tensor io{"io", 1, cols, dtype::f32};
    io.inout = true;
    l.tensors.push_back(io);
    l.body = [how](tl::context& tl, const tensor_table& t) {
      const tl::tensor x = tl.load(t.at("x"), {1, cols});
      if (tl.program_id() == 0 && how == "cross_read") {
        tl.wait(tl.store(t.at("y"), tl.scale(x, 2.0))); // a compute result: pending
        return;
      }
      if (tl.program_id() != tl.num_programs() - 1 || how == "none" || how == "ref_segv")
        return;
      if (how == "segv")
        write_null();
      if (how == "fpe") {
        // Both volatile: GCC turns 1 / x into a comparison, with no division.
        volatile int n = 100, zero = 0;
        volatile int q = n / zero;
        (void)q;
      }
      if (how == "overflow")
        (void)deeper(0);
      if (how == "abort")
        std::abort();
      if (how == "exit0")
        std::exit(0);
      if (how == "quick_exit")
        std::quick_exit(0);
      if (how == "load_past")
        (void)tl.load(t.at("x") + 16 * cols, {1, cols});
      if (how == "store_past")
        tl.wait(tl.store(t.at("y") + cols, x));
      if (how == "load_far")
        (void)tl.load(t.at("x") + (uint64_t{1} << 40), {1, cols});
      if (how == "store_input")
        tl.wait(tl.store(t.at("x"), x));
      if (how == "store_inout")
        tl.wait(tl.store(t.at("io"), x));
      if (how == "thread") {
        std::thread other([&] { (void)tl.load(t.at("x"), {1, cols}); });
        other.join();
        return;
      }
      if (how == "throw_int")
        throw 42;
      if (how == "throw_string")
        throw "no luck";
      if (how == "spin") {
        volatile uint64_t n = 0;
        for (;;)
          n = n + 1;
      }
      if (how == "poll") {
        while (tl.load(t.at("flag"), {1, 1}).at(0, 0) == 0) {
        }
        return;
      }
      // cross_read: let program 0's store land, then read what it wrote.
      for (int i = 0; i < 40; ++i)
        (void)tl.load(t.at("x"), {1, cols});
      (void)tl.load(t.at("y"), {1, cols}).at(0, 0);
    };
    // y is never written: zeros (cross_read's pending store is never verified).
    l.reference = [how](const tensor_values&) -> tensor_values {
      if (how == "ref_segv")
        write_null();
      return {{"y", std::vector<double>(cols, 0.0)}};
    };
    return l;
  };
  return d;
}

} // namespace

extern "C" void kernbench_register_kernels(kb::kernel_catalog& catalog) {
  catalog.add(misuse_kernel());
}

extern "C" int kernbench_kernel_abi() { return kb::kernel_abi_version; }
