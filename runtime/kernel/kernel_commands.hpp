#pragma once
// The PE commands a kernel's calls become (kernels/tl.hpp): one-stage
// plans on the PE's own units, built from the call's operands alone.
// kernel_context checks the call, orders it after what it depends on
// (memory_hazards) and issues the command; what the command is, is here
// (tests/kernel/kernel_commands_test.cpp checks each field by hand).

#include "kernels/math_fn.hpp"
#include "kernels/tensor_view.hpp"
#include "runtime/data/op_record.hpp"
#include "runtime/plan/pipeline_plan.hpp"

#include <cstdint>
#include <optional>

namespace kb {

/// A DMA between rows of global memory (`stride` B apart from `global`)
/// and the TCM view `local` (its rows, columns and type): one stage on the
/// PE's PE_DMA; a read brings the bytes back to the kernel (want_data).
stage dma_stage(bool read, uint64_t global, uint64_t stride, const tensor_view& local);
/// The op record of that DMA for Phase 2: a copy from `global` into
/// `local` (read) or back; with `atomic`, the atomic out = f(out, local)
/// at the memory (docs/adr/0027-atomics.md).
op_record dma_op(bool read, uint64_t global, uint64_t stride, const tensor_view& local,
                 std::optional<math_fn> atomic = std::nullopt);
/// A stage on PE_MATH writing `rows` x `cols` of `out` from `in` inputs:
/// `elements` at the timing class `cost`.
stage math_stage(uint32_t rows, uint32_t cols, dtype in, dtype out, uint64_t elements,
                 math_op cost);
/// A stage on PE_GEMM writing `rows` x `cols` of `out`, `k` deep, the last
/// (and only) step of its accumulation.
stage gemm_stage(uint32_t rows, uint32_t cols, uint32_t k, dtype in, dtype out);

} // namespace kb
