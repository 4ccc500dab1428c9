// A kernel library of kernels that misuse kernbench (tests/cli/
// kernel_misuse_test.cpp): `misuse --arg how=...` makes its last program
//   throw_int     throw 42 after a load,
//   throw_string  throw "no luck" (a const char*) after a load,
//   spin          loop forever without a tl:: call (the stall watchdog),
//   poll          load a flag nothing ever sets, forever (--max-sim-time),
//   cross_read    load what program 0 stores from a compute result and
//                 read an element of it: Phase 1 has no data for it,
//   none          nothing wrong.
// Every other program loads a row and returns.

#include "kernels/registry.hpp"

#include <stdexcept>

namespace {

using namespace kb;

kernel_def misuse_kernel() {
  kernel_def d;
  d.name = "misuse";
  d.description = "its last program misbehaves as --arg how says (a test kernel library)";
  d.args = {{"how", "throw_int", "none, throw_int, throw_string, spin, poll or cross_read"},
            {"programs", "4", "the grid"}};
  d.prepare = [](const kernel_args& a) {
    const std::string how = a.text("how");
    if (how != "none" && how != "throw_int" && how != "throw_string" && how != "spin" &&
        how != "poll" && how != "cross_read")
      throw std::invalid_argument("--arg how=" + how + ": not a misuse this kernel knows");
    constexpr uint32_t cols = 64;
    kernel_launch l;
    l.grid = {a.u32("programs"), 1, 1};
    l.tensors = {{"x", 1, cols, dtype::f32},
                 {"flag", 1, 1, dtype::f32, false, 0, 0},
                 {"y", 1, cols, dtype::f32, true}};
    l.body = [how](tl::context& tl, const tensor_table& t) {
      const tl::tensor x = tl.load(t.at("x"), {1, cols});
      if (tl.program_id() == 0 && how == "cross_read") {
        tl.wait(tl.store(t.at("y"), tl.scale(x, 2.0))); // a compute result: pending
        return;
      }
      if (tl.program_id() != tl.num_programs() - 1 || how == "none")
        return;
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
    return l;
  };
  return d;
}

} // namespace

extern "C" void kernbench_register_kernels(kb::kernel_catalog& catalog) {
  catalog.add(misuse_kernel());
}

extern "C" int kernbench_kernel_abi() { return kb::kernel_abi_version; }
