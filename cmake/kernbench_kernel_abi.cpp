// Added to every library made by kernbench_add_kernel_library
// (kernbenchConfig.cmake): the kernel ABI the library was built against,
// checked when kernbench loads it (kernels/registry.hpp).
#include "kernels/registry.hpp"

extern "C" int kernbench_kernel_abi() {
  return kb::kernel_abi_version;
}
