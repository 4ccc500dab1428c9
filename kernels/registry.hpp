#pragma once
// Kernels runnable by name (`kernbench run --kernel NAME --arg k=v ...`):
// each registered kernel declares its arguments, and from their values
// builds a launch: the tensors the host deploys, the grid, the kernel body
// and the reference the Phase 2 results are verified against.

#include "kernels/tl.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kb {

/// One argument a kernel takes.
struct kernel_arg_doc {
  std::string name;
  std::string fallback; ///< default value, as text
  std::string help;
};

/// `--arg` values, checked against a kernel's declared arguments.
class kernel_args {
public:
  kernel_args(std::string kernel, const std::vector<kernel_arg_doc>& docs,
              const std::map<std::string, std::string>& given);
  uint32_t u32(const std::string& name) const;
  double real(const std::string& name) const;
  dtype type(const std::string& name) const;
  const std::string& text(const std::string& name) const;

private:
  [[noreturn]] void fail(const std::string& name, const std::string& why) const;
  std::string kernel_;
  std::map<std::string, std::string> values_;
};

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
  std::function<void(std::vector<float>&)> adjust = {};
};

/// Where the host put the tensors: name -> pointer.
using tensor_table = std::map<std::string, tl::ptr>;
/// Tensor contents as f32, row-major: name -> values.
using tensor_values = std::map<std::string, std::vector<float>>;

struct kernel_launch {
  std::vector<kernel_tensor> tensors;
  uint32_t programs = 1; ///< the grid (axis 0); programs are dealt to PEs round robin
  std::function<void(tl::context&, const tensor_table&)> body;
  /// The expected outputs from the deployed inputs (the D11 reference).
  std::function<tensor_values(const tensor_values& inputs)> reference;
};

struct kernel_def {
  std::string name;
  std::string description;
  std::vector<kernel_arg_doc> args;
  std::function<kernel_launch(const kernel_args&)> prepare;
};

/// The kernels kernbench ships, by name.
const std::map<std::string, kernel_def>& shipped_kernels();
/// The kernel called `name`; std::invalid_argument listing the known ones.
const kernel_def& find_kernel(const std::string& name);

} // namespace kb
