#pragma once
// The one error type of the plan generators.

#include <stdexcept>
#include <string>

namespace kb {

/// Thrown by `generate_gemm_plan` / `generate_math_plan` for arguments no
/// plan can be built from (zero dimension or tile size, epilogue op without a
/// scope, empty PE prefix, address overflow). The message names the argument.
class plan_error : public std::invalid_argument {
public:
  explicit plan_error(const std::string& what) : std::invalid_argument(what) {}
};

} // namespace kb
