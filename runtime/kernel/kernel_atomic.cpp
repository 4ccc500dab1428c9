// tl::context's atomics on global memory (kernels/tl.hpp, docs/adr/0027):
// a DMA write per group of live rows (kernel_masked's store_live) whose op
// record is the atomic itself, out = f(out, operand), applied by the memory
// that owns the bytes. For this kernel's hazards an atomic is a write: it
// waits for the loads, stores and computes in flight on its bytes, and later
// loads of them wait for it (and take no store-to-load forwarding across it).
#include "runtime/kernel/kernel_context.hpp"

#include "runtime/kernel/tensor_state.hpp"

#include <fmt/format.h>

namespace kb {

tl::handle kernel_context::atomic(math_fn f, tl::ptr dst, const tl::tensor& t,
                                  const tl::tensor* mask, uint64_t row_stride) {
  const tl_call call(*this, "tl.atomic");
  if (!is_atomic(f))
    fail(fmt::format("tl.atomic of '{}': the atomics are atomic_add and atomic_max",
                     to_string(f)));
  const std::string name(to_string(f));
  const auto& s = operand(t, name);
  const std::string what = fmt::format("{}{} of {}x{} {}", mask ? "masked " : "", name, s.rows,
                                       s.cols, to_string(s.type));
  if (s.type != dtype::f32 && s.type != dtype::i32)
    fail(fmt::format("{}: atomics take f32 or i32 elements (cast the tensor first)", what));
  if (dst.type != s.type)
    fail(fmt::format("{} through a {} pointer: the tensor and the memory must have the same "
                     "element type",
                     what, to_string(dst.type)));
  if (!mask)
    return store_live(dst, s, row_stride, nullptr, nullptr, what, f);
  const std::vector<uint8_t> live = live_elements(*mask, s.rows, s.cols, what);
  return store_live(dst, s, row_stride, &live, mask->raw(), what, f);
}

} // namespace kb
