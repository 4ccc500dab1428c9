#include "runtime/host/kernel_calls.hpp"

#include "kernels/kernel_library.hpp"
#include "runtime/exception_text.hpp"

#include <fmt/format.h>

#include <cctype>

namespace kb {

std::string kernel_named(const std::string& name) {
  const auto& loaded = loaded_kernels();
  const auto it = loaded.find(name);
  if (it == loaded.end())
    return "kernel " + name;
  return fmt::format("kernel {} (library {})", name, it->second.library);
}

kernel_launch call_prepare(const kernel_def& def, const kernel_args& args) {
  if (!def.prepare)
    throw kernel_code_error(fmt::format("{}: it has no prepare function", kernel_named(def.name)));
  try {
    return def.prepare(args);
  } catch (const std::invalid_argument& e) {
    // Bad arguments: the kernel named once, with its library.
    std::string what = e.what();
    const std::string plain = "kernel " + def.name;
    if (const size_t at = what.find(plain); at != std::string::npos) {
      const bool whole = at + plain.size() == what.size() ||
                         !(std::isalnum(static_cast<unsigned char>(what[at + plain.size()])) ||
                           what[at + plain.size()] == '_');
      if (whole)
        throw std::invalid_argument(what.replace(at, plain.size(), kernel_named(def.name)));
    }
    throw std::invalid_argument(fmt::format("{}: {}", kernel_named(def.name), what));
  } catch (...) {
    throw kernel_code_error(fmt::format("{}: its prepare threw {}", kernel_named(def.name),
                                        current_exception_text(true)));
  }
}

tensor_values call_reference(const std::string& kernel, const kernel_launch& l,
                             const tensor_values& inputs) {
  if (!l.reference)
    throw kernel_code_error(
      fmt::format("{}: it has no reference to verify its outputs against", kernel_named(kernel)));
  try {
    return l.reference(inputs);
  } catch (...) {
    throw kernel_code_error(fmt::format("{}: its reference threw {}", kernel_named(kernel),
                                        current_exception_text(true)));
  }
}

} // namespace kb
