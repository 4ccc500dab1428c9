#pragma once
// Kernels runnable by name (`kernbench run --kernel NAME --arg k=v ...`):
// each registered kernel declares its arguments, and from their values
// builds a launch: the tensors the host deploys, the grid, the kernel body
// and the reference the Phase 2 results are verified against.
//
// Besides the kernels kernbench ships, a kernel library built against an
// installed kernbench (`find_package(kernbench)`, docs/kernels.md) adds its
// own at run time (`--kernel-lib PATH`): it defines the two entry points at
// the end of this file. This header is part of that interface: a change to
// any type a kernel library sees bumps `kernel_abi_version`.

#include "kernels/tl.hpp"

#include <cstdint>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// One argument a kernel takes.
struct kernel_arg_doc {
  std::string name;
  std::string fallback; ///< default value, as text
  std::string help;
  /// The values it may take (e.g. the dtypes a kernel supports); empty: any.
  /// kernel_args refuses any other value, naming the kernel, the argument
  /// and these; `kernbench list-kernels` shows them.
  std::vector<std::string> choices = {};
};

/// `--arg` values, checked against a kernel's declared arguments.
class kernel_args {
public:
  kernel_args(std::string kernel, const std::vector<kernel_arg_doc>& docs,
              const std::map<std::string, std::string>& given);
  /// A host program's arguments (its errors name the program).
  static kernel_args for_program(std::string program, const std::vector<kernel_arg_doc>& docs,
                                 const std::map<std::string, std::string>& given);
  uint32_t u32(const std::string& name) const;
  double real(const std::string& name) const;
  dtype type(const std::string& name) const;
  const std::string& text(const std::string& name) const;
  /// Every argument's value as text, defaults filled in, by name.
  const std::map<std::string, std::string>& values() const { return values_; }

private:
  [[noreturn]] void fail(const std::string& name, const std::string& why) const;
  kernel_args(std::string noun, std::string kernel, const std::vector<kernel_arg_doc>& docs,
              const std::map<std::string, std::string>& given);
  std::string noun_; ///< "kernel" or "program", as errors call what takes the arguments
  std::string kernel_;
  std::map<std::string, std::string> values_;
};

/// An output's own verification tolerance, instead of its dtype's
/// (docs/kernels.md, "How results are checked"): an element passes when
/// |got - expected| <= rtol * |expected| + atol_factor * max(scale, floor).
struct verify_tolerance {
  double rtol = 0;
  double atol_factor = 0;
};

/// Where the host places a tensor (docs/kernels.md "Where tensors live").
struct tensor_place {
  enum class memory : uint8_t {
    first_cube_hbm, ///< the HBM of the cube of the first PE the grid is dealt to
    hbm,            ///< the HBM of cube `cube` of SIP `sip`
    sram,           ///< the shared SRAM of cube `cube` of SIP `sip`
    /// Blocks of `block_rows` rows (0: the rows over the grid's PEs, evenly),
    /// block i in the HBM of the cube of the i-th PE the grid is dealt to
    /// (modulo their number): the PE that runs program i of a 1-D grid.
    spread,
    /// Blocks of `block_rows` rows (0: the rows over the cubes evenly),
    /// block i in the HBM of the i-th cube the grid's PEs are in (in the
    /// machine's order; modulo their number): a tensor's rows split over
    /// the cubes, for work split over the cubes by rows.
    spread_cubes,
    /// An input copied into the HBM of every cube the grid's PEs are in;
    /// each PE's pointer is its own cube's copy. Read-only.
    replicated,
    /// The AllocatableTCM of PE `pe` of cube `cube` of SIP `sip`, taken
    /// from the kernels' pool there before the launch.
    tcm,
  };
  memory in = memory::first_cube_hbm;
  uint32_t sip = 0, cube = 0, pe = 0;
  uint32_t block_rows = 0; ///< spread, spread_cubes: rows per block (0: even)
};

/// "hbm", "hbm:sip0.cube1", "sram:sip1.cube0", "spread", "spread:ROWS",
/// "cubes", "cubes:ROWS", "replicated", "tcm:sip0.cube1.pe3" (and back);
/// nullopt if not one.
std::optional<tensor_place> parse_tensor_place(std::string_view text);
std::string to_string(const tensor_place& p);

/// A tensor the host places in memory before the launch.
struct kernel_tensor {
  std::string name;   ///< also the .npy file's name
  uint32_t rows = 0;
  uint32_t cols = 0;
  dtype type = dtype::f32;
  bool output = false; ///< outputs start zeroed and are verified; inputs are random
  float lo = -1, hi = 1; ///< range of an input's random values
  /// Applied to an input's random values (row-major) before they are
  /// deployed, e.g. to zero some rows.
  std::function<void(std::vector<double>&)> adjust = {};
  /// An output verified with this tolerance instead of its dtype's.
  std::optional<verify_tolerance> tolerance = {};
  /// Where it lives (`--place NAME=...` overrides it).
  tensor_place place = {};
  /// A scratch tensor: allocated, not initialised (it reads as zeros), not
  /// verified; `--dump-tensors` writes what the kernel left in it.
  bool scratch = false;
  /// An input the kernel also writes (in place): without it a store or
  /// atomic into an input is a kernel_error naming the tensor.
  bool inout = false;
};

/// Where the host put the tensors: name -> pointer.
using tensor_table = std::map<std::string, tl::ptr>;
/// Tensor contents, row-major: name -> values. Doubles, so that inputs (as
/// deployed) and integer references are exact: every dtype's value is a
/// double exactly, and so is an integer up to 2^53.
using tensor_values = std::map<std::string, std::vector<double>>;

struct kernel_launch {
  std::vector<kernel_tensor> tensors;
  /// The grid: programs along axes 0, 1 and 2 (each at least 1). Program
  /// (x, y, z) is number x + X (y + Y z) (axis 0 fastest); the numbers are
  /// dealt to the PEs round robin, a PE runs its programs in turn.
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::function<void(tl::context&, const tensor_table&)> body;
  /// The expected outputs from the deployed inputs (the D11 reference),
  /// in f64 (or exact integers); the verifier rounds them to each output's
  /// dtype as a store does.
  std::function<tensor_values(const tensor_values& inputs)> reference;
};

struct kernel_def {
  std::string name;
  std::string description;
  std::vector<kernel_arg_doc> args;
  std::function<kernel_launch(const kernel_args&)> prepare;
};

class program_builder; // kernels/program.hpp

/// A host program (kernels/program.hpp): from its arguments, `build`
/// declares its tensors, launches, queues and events, and its reference.
struct program_def {
  std::string name;
  std::string description;
  std::vector<kernel_arg_doc> args;
  std::function<void(program_builder&, const kernel_args&)> build;
};

/// The version of the kernel library interface: this header, kernels/tl.hpp
/// and what they include. A library built against another version is
/// refused when it is loaded.
inline constexpr int kernel_abi_version = 6;

/// What a kernel library's `kernbench_register_kernels` adds its kernels to.
class kernel_catalog {
public:
  /// Adds a kernel (checked by the loader: a name, a prepare function, no
  /// name kernbench or another library already has).
  void add(kernel_def d);
  /// Adds a host program (checked likewise: a name, a build function, no
  /// name taken by another program).
  void add_program(program_def d);
  const std::vector<kernel_def>& kernels() const { return kernels_; }
  const std::vector<program_def>& programs() const { return programs_; }

private:
  std::vector<kernel_def> kernels_;
  std::vector<program_def> programs_;
};

/// The kernels kernbench ships, by name.
const std::map<std::string, kernel_def>& shipped_kernels();
/// The kernel called `name`, shipped or loaded (runtime/host/kernel_library);
/// std::invalid_argument listing the known ones.
const kernel_def& find_kernel(const std::string& name);

} // namespace kb

// -- the entry points of a kernel library ------------------------------------
// Both are looked up by name after dlopen, so they are extern "C" and
// exported even from a library built with -fvisibility=hidden.
extern "C" {
/// Adds the library's kernels (and host programs) to `catalog`.
__attribute__((visibility("default"))) void kernbench_register_kernels(kb::kernel_catalog& catalog);
/// Returns kb::kernel_abi_version as the library saw it when it was built
/// (kernbench_add_kernel_library adds this function; elsewhere define it as
/// `extern "C" int kernbench_kernel_abi() { return kb::kernel_abi_version; }`).
__attribute__((visibility("default"))) int kernbench_kernel_abi();
}
