#pragma once
// The data of a built-in driver run (`kernbench run --verify`, DESIGN §5):
// the driver is a kernel whose composite commands move real bytes too. The
// host deploys seeded random operands for every PE's command (A and B, and
// each epilogue op's operand tensor) and computes what each C must hold:
//
//   GEMM   C = epi_out(... epi_k(epi_k(A[:,K0] B[K0,:]) + A[:,K1] B[K1,:]) ...)
//          (the k_tile epilogue ops after every K tile's partial sum, the
//          output_tile ops once at the end, as the plan orders them)
//   MATH   C = f(A) for relu, exp, rsqrt and scale
//
// in double precision; data_session then replays the op log and checks.

#include "runtime/data/memory_image.hpp"
#include "runtime/host/data_session.hpp"
#include "runtime/pipeline/command.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kb {

struct driver_data {
  std::shared_ptr<memory_image> image;  ///< every input deployed, outputs zero
  std::vector<data_tensor> tensors;     ///< per PE: a, b, c and the epilogue operands
  std::map<std::string, std::vector<double>> expected; ///< per output, f64 (with `reference`)
};

/// Deploys the operands of `commands[i]` (the command PE `pes[i]` runs, as
/// GEMM or MATH args) from `seed`, and with `reference` computes every C.
/// Tensor names: "a", "b", "c", "<op><i>" (epilogue op i's operand) for one
/// PE; "<pe>.a", ... for more. Throws std::invalid_argument naming the op
/// for a command the replay cannot follow (a MATH command of add, mul,
/// bias or dequant, which name no second operand; an epilogue op without
/// its operand tensor).
driver_data make_driver_data(const std::vector<std::string>& pes,
                             const std::vector<pe_command>& commands, uint64_t seed,
                             bool reference);

} // namespace kb
