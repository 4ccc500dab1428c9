#pragma once
// Kernel libraries loaded at run time (`kernbench run --kernel-lib PATH`):
// a shared library built against an installed kernbench (docs/kernels.md)
// whose `kernbench_register_kernels` adds kernels that `find_kernel` then
// finds beside the shipped ones. The library links nothing from kernbench:
// the functions its kernels call resolve against this executable, which
// exports the kb:: namespace (cmake/kernel_api.dynlist).

#include "kernels/registry.hpp"

#include <map>
#include <string>

namespace kb {

/// A kernel added by a kernel library, and the path it was loaded from.
struct loaded_kernel {
  kernel_def def;
  std::string library;
};

/// Opens the kernel library at `path` (dlopen, RTLD_NOW | RTLD_LOCAL),
/// checks its kernel ABI and registers its kernels. Every failure is
/// std::invalid_argument naming the path: a library that cannot be opened
/// (with the loader's reason), one without the entry points, a different
/// kernel ABI, a kernel without a name or a prepare function, a name that
/// is taken (shipped, by another library, or twice in this one). Nothing
/// of a refused library is registered. Loaded libraries stay loaded for the
/// rest of the process (their kernels' code lives there).
void load_kernel_library(const std::string& path);

/// The kernels of the libraries loaded so far, by name.
const std::map<std::string, loaded_kernel>& loaded_kernels();

/// A host program added by a kernel library, and the path it was loaded from.
struct loaded_program {
  program_def def;
  std::string library;
};

/// The host programs of the libraries loaded so far, by name.
const std::map<std::string, loaded_program>& loaded_programs();

} // namespace kb
