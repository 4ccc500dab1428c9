// Fuzz target: the kernel-argument parser (`run --kernel NAME --arg K=V ...
// --place T=WHERE`). The first byte picks a shipped kernel; each further
// line is an --arg. Any input must end in a launch (every grid axis at
// least 1, every tensor named and sized) or a std::invalid_argument, the
// error the command line reports as bad input: nothing else may escape a
// shipped kernel's prepare. Every value that reads as a --place prints
// back to itself.

#include "kernels/registry.hpp"
#include "kernels/shipped.hpp"
#include "runtime/cli/kernel_arg_list.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<kb::kernel_def> kernels = kb::shipped_kernel_list();
  if (size == 0)
    return 0;
  const kb::kernel_def& def = kernels[data[0] % kernels.size()];
  std::vector<std::string> lines;
  std::string line;
  for (size_t i = 1; i < size; ++i) {
    if (data[i] == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += static_cast<char>(data[i]);
    }
  }
  if (!line.empty())
    lines.push_back(line);
  for (const std::string& l : lines) {
    const size_t eq = l.find('=');
    const auto place = kb::parse_tensor_place(l.substr(eq == std::string::npos ? 0 : eq + 1));
    if (!place)
      continue;
    const std::string text = kb::to_string(*place);
    const auto back = kb::parse_tensor_place(text);
    if (!back || kb::to_string(*back) != text)
      std::abort();
  }
  try {
    const kb::kernel_args args(def.name, def.args, kb::parse_kernel_args(lines));
    const kb::kernel_launch l = def.prepare(args);
    for (uint32_t g : l.grid)
      if (g == 0)
        std::abort();
    for (const kb::kernel_tensor& t : l.tensors)
      if (t.name.empty() || t.rows == 0 || t.cols == 0)
        std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
