#pragma once
// Element-wise operations of PE_MATH and the epilogue ops of a GEMM command.
// Part of the kernel API (kernels/command_args.hpp); the functions are
// defined in runtime/plan/math_op.cpp.

#include "kernels/tensor_view.hpp"

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

/// Where a GEMM epilogue op runs (seed ADR-0042 D4).
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
/// `generate_gemm_plan` (it is not silently dropped, unlike seed ADR-0042 D4):
/// picking a default is the caller's job.
///
/// The data it works on (what the Phase 2 replay computes; the timing is the
/// MATH stage's alone, DESIGN §4): relu, exp and rsqrt act on the
/// accumulator. bias adds a 1 x N row `operand`; add and mul take a 1 x N
/// row or an M x N `operand` (element by element with C); dequant multiplies
/// by a 1 x N row of per-column scales `operand`, or by `value` without one;
/// scale multiplies by `value`. bias, add and mul without an operand are
/// timed but cannot be replayed (the op log refuses them by name).
struct epilogue_op {
  epilogue_op() = default;
  epilogue_op(math_op o, std::optional<epilogue_scope> s,
              std::optional<tensor_view> data = std::nullopt, double v = 1.0)
      : op(o), scope(s), operand(data), value(v) {}

  math_op op = math_op::add;
  std::optional<epilogue_scope> scope;
  /// The whole operand (rows 1 or M, cols N), in any memory.
  std::optional<tensor_view> operand;
  /// scale, and dequant without an operand.
  double value = 1.0;

  friend bool operator==(const epilogue_op&, const epilogue_op&) = default;
};

/// Whether `op` reads an operand tensor in its replay (bias, add, mul,
/// dequant) rather than only the accumulator and `value`.
bool takes_operand(math_op op);

} // namespace kb
