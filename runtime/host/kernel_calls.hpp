#pragma once
// Calls into a kernel author's code on the host side: a kernel's `prepare`
// and its `reference`. Whatever they throw ends the run cleanly, with the
// kernel named (a kernel may throw anything, `throw 42;` too):
// - std::invalid_argument from prepare stays a bad-input error (exit 2),
//   prefixed with "kernel NAME: " unless it names the kernel already;
// - a kernel a --kernel-lib library added is "kernel NAME (library PATH)"
//   in every message, so that a library's failing prepare names both;
// - anything else, from prepare or from reference, is a kernel_code_error
//   (exit 1: the run failed), e.g. "kernel k: its prepare threw an int (42)".

#include "kernels/registry.hpp"

#include <stdexcept>
#include <string>

namespace kb {

/// A kernel's own code failed (not the simulator, not the user's input).
class kernel_code_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// "kernel NAME", or "kernel NAME (library PATH)" for a loaded kernel.
std::string kernel_named(const std::string& name);

/// def.prepare(args), guarded as above.
kernel_launch call_prepare(const kernel_def& def, const kernel_args& args);

/// l.reference(inputs) of kernel `kernel`, guarded as above; a launch
/// without a reference is a kernel_code_error too.
tensor_values call_reference(const std::string& kernel, const kernel_launch& l,
                             const tensor_values& inputs);

} // namespace kb
