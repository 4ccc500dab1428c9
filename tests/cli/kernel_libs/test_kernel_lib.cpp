// Kernel libraries for tests/cli/user_kernel_test.cpp, one source built
// several ways (tests/cli/CMakeLists.txt) by KB_TEST_LIB:
//   1 good: `twice` (Z = 2 X), run and verified through --kernel-lib
//   2 abi:  the same, but reporting another kernel ABI
//   3 none: no entry points at all
//   4 shipped: a kernel named like a shipped one (softmax)
//   5 twice: the same kernel added twice

#include "kernels/registry.hpp"

#include <algorithm>
#include <vector>

namespace {

using namespace kb;

kernel_def twice_kernel(const char* name) {
  kernel_def d;
  d.name = name;
  d.description = "Z = 2 X, one row block per program (a test kernel library)";
  d.args = {{"rows", "32", "rows of X and Z"}, {"cols", "16", "columns"}};
  d.prepare = [](const kernel_args& x) {
    const uint32_t rows = x.u32("rows"), cols = x.u32("cols");
    kernel_launch l;
    l.tensors = {{"x", rows, cols, dtype::f32}, {"z", rows, cols, dtype::f32, true}};
    l.grid = {2, 1, 1};
    l.body = [rows, cols](tl::context& tl, const tensor_table& t) {
      const uint32_t half = (rows + 1) / 2;
      const uint32_t r0 = tl.program_id() * half;
      const uint32_t n = std::min(half, rows - std::min(rows, r0));
      if (n > 0) {
        const tl::tensor x = tl.load(t.at("x") + uint64_t{r0} * cols, {n, cols});
        tl.wait(tl.store(t.at("z") + uint64_t{r0} * cols, tl.scale(x, 2.0)));
      }
    };
    l.reference = [](const tensor_values& in) {
      std::vector<double> z = in.at("x");
      for (double& v : z)
        v *= 2;
      return tensor_values{{"z", std::move(z)}};
    };
    return l;
  };
  return d;
}

} // namespace

#if KB_TEST_LIB != 3
extern "C" void kernbench_register_kernels(kb::kernel_catalog& catalog) {
#if KB_TEST_LIB == 4
  catalog.add(twice_kernel("softmax"));
#else
  catalog.add(twice_kernel("twice"));
#endif
#if KB_TEST_LIB == 5
  catalog.add(twice_kernel("twice"));
#endif
}

extern "C" int kernbench_kernel_abi() {
  return kb::kernel_abi_version + (KB_TEST_LIB == 2 ? 1 : 0);
}
#else
extern "C" __attribute__((visibility("default"))) int not_a_kernel_library() {
  return static_cast<int>(twice_kernel("unused").args.size());
}
#endif
