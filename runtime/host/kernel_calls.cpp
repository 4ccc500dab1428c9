#include "runtime/host/kernel_calls.hpp"

#include "runtime/exception_text.hpp"

#include <fmt/format.h>

namespace kb {

kernel_launch call_prepare(const kernel_def& def, const kernel_args& args) {
  if (!def.prepare)
    throw kernel_code_error(fmt::format("kernel {}: it has no prepare function", def.name));
  try {
    return def.prepare(args);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    if (what.find("kernel " + def.name) != std::string::npos)
      throw;
    throw std::invalid_argument(fmt::format("kernel {}: {}", def.name, what));
  } catch (...) {
    throw kernel_code_error(
      fmt::format("kernel {}: its prepare threw {}", def.name, current_exception_text(true)));
  }
}

tensor_values call_reference(const std::string& kernel, const kernel_launch& l,
                             const tensor_values& inputs) {
  if (!l.reference)
    throw kernel_code_error(
      fmt::format("kernel {}: it has no reference to verify its outputs against", kernel));
  try {
    return l.reference(inputs);
  } catch (...) {
    throw kernel_code_error(
      fmt::format("kernel {}: its reference threw {}", kernel, current_exception_text(true)));
  }
}

} // namespace kb
