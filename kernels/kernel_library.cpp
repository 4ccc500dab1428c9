#include "kernels/kernel_library.hpp"

#include "kernels/program.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <filesystem>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

namespace kb {

namespace {

std::map<std::string, loaded_kernel>& loaded() {
  static std::map<std::string, loaded_kernel> all;
  return all;
}

std::map<std::string, loaded_program>& loaded_progs() {
  static std::map<std::string, loaded_program> all;
  return all;
}

/// Handles of the libraries loaded for good. Never closed: the kernels'
/// std::function targets and their code live in them.
std::vector<void*>& handles() {
  static std::vector<void*> all;
  return all;
}

/// A dlopen handle closed on scope exit unless kept.
class library_handle {
public:
  explicit library_handle(void* h) : h_(h) {}
  library_handle(const library_handle&) = delete;
  library_handle& operator=(const library_handle&) = delete;
  ~library_handle() {
    if (h_)
      dlclose(h_);
  }
  void* get() const { return h_; }
  void* keep() { return std::exchange(h_, nullptr); }

private:
  void* h_;
};

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw std::invalid_argument(fmt::format("--kernel-lib {}: {}", path, why));
}

} // namespace

const std::map<std::string, loaded_kernel>& loaded_kernels() {
  return loaded();
}

const std::map<std::string, loaded_program>& loaded_programs() {
  return loaded_progs();
}

void load_kernel_library(const std::string& path) {
  // A name without a slash would make dlopen search the library path; the
  // user means a file.
  const std::string file = std::filesystem::absolute(path).lexically_normal().string();
  dlerror();
  library_handle lib(dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!lib.get()) {
    const char* why = dlerror();
    refuse(path, fmt::format("cannot load it: {}", why ? why : "unknown reason"));
  }
  for (void* h : handles())
    if (h == lib.get())
      refuse(path, "loaded already (given twice?)");

  using abi_fn = int (*)();
  using register_fn = void (*)(kernel_catalog&);
  auto* abi = reinterpret_cast<abi_fn>(dlsym(lib.get(), "kernbench_kernel_abi"));
  auto* reg = reinterpret_cast<register_fn>(dlsym(lib.get(), "kernbench_register_kernels"));
  if (!abi || !reg)
    refuse(path, fmt::format("not a kernbench kernel library: it does not export {} (build it "
                             "with kernbench_add_kernel_library from find_package(kernbench))",
                             !reg ? "kernbench_register_kernels" : "kernbench_kernel_abi"));
  if (const int v = abi(); v != kernel_abi_version)
    refuse(path, fmt::format("built for kernel ABI {}, this kernbench has kernel ABI {} (rebuild "
                             "it against this kernbench's installation)",
                             v, kernel_abi_version));

  kernel_catalog catalog;
  try {
    reg(catalog);
  } catch (const std::exception& e) {
    refuse(path, fmt::format("kernbench_register_kernels failed: {}", e.what()));
  } catch (...) {
    refuse(path, "kernbench_register_kernels failed (a non-standard exception)");
  }
  // Check everything before registering anything.
  std::set<std::string> mine;
  const auto& shipped = shipped_kernels();
  for (size_t i = 0; i < catalog.kernels().size(); ++i) {
    const kernel_def& d = catalog.kernels()[i];
    if (d.name.empty())
      refuse(path, fmt::format("its kernel #{} has no name", i + 1));
    if (!d.prepare)
      refuse(path, fmt::format("kernel {} has no prepare function", d.name));
    if (shipped.count(d.name))
      refuse(path, fmt::format("kernel {} is already defined (kernbench ships it)", d.name));
    if (auto it = loaded().find(d.name); it != loaded().end())
      refuse(path, fmt::format("kernel {} is already defined (by {})", d.name, it->second.library));
    if (!mine.insert(d.name).second)
      refuse(path, fmt::format("kernel {} is added twice", d.name));
  }
  for (size_t i = 0; i < catalog.programs().size(); ++i) {
    const program_def& d = catalog.programs()[i];
    if (d.name.empty())
      refuse(path, fmt::format("its program #{} has no name", i + 1));
    if (!d.build)
      refuse(path, fmt::format("program {} has no build function", d.name));
    if (shipped_programs().count(d.name))
      refuse(path, fmt::format("program {} is already defined (kernbench ships it)", d.name));
    if (auto it = loaded_progs().find(d.name); it != loaded_progs().end())
      refuse(path,
             fmt::format("program {} is already defined (by {})", d.name, it->second.library));
    if (!mine.insert("program " + d.name).second)
      refuse(path, fmt::format("program {} is added twice", d.name));
  }
  if (catalog.kernels().empty() && catalog.programs().empty())
    refuse(path, "it adds no kernels and no programs");
  handles().push_back(lib.keep());
  for (const kernel_def& d : catalog.kernels())
    loaded().emplace(d.name, loaded_kernel{d, path});
  for (const program_def& d : catalog.programs())
    loaded_progs().emplace(d.name, loaded_program{d, path});
}

} // namespace kb
