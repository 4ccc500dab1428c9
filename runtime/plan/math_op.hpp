#pragma once
// Element-wise operations of PE_MATH and the epilogue ops of a GEMM command.

#include <cstdint>
#include <optional>
#include <string_view>

namespace kb {

/// An element-wise operation PE_MATH performs (DESIGN §4: op_cost 1 for
/// add/mul/relu/bias/scale, 4 for exp/dequant/rsqrt).
enum class math_op : uint8_t {
  add,
  mul,
  relu,
  bias,
  scale,
  exp,
  dequant,
  rsqrt
};

/// Lower-case name of `op` ("relu", "dequant", ...).
std::string_view to_string(math_op op);

/// Parses a lower-case op name; `std::nullopt` if unknown.
std::optional<math_op> parse_math_op(std::string_view name);

/// Where a GEMM epilogue op runs (ADR-0042 D4).
enum class epilogue_scope : uint8_t {
  /// After GEMM on every K tile.
  k_tile,
  /// Once per output tile, on the last K tile, before STORE.
  output_tile,
};

/// Name of `scope` ("k_tile" or "output_tile").
std::string_view to_string(epilogue_scope scope);

/// Parses "k_tile" or "output_tile"; `std::nullopt` otherwise.
std::optional<epilogue_scope> parse_epilogue_scope(std::string_view name);

/// One epilogue op of a GEMM command. A missing scope is rejected by
/// `generate_gemm_plan` (it is not silently dropped, unlike ADR-0042 D4):
/// picking a default is the caller's job.
struct epilogue_op {
  math_op op = math_op::add;
  std::optional<epilogue_scope> scope;

  friend bool operator==(const epilogue_op&, const epilogue_op&) = default;
};

} // namespace kb
