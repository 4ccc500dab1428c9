#include "runtime/pipeline/stage_ops.hpp"

#include "runtime/pipeline/token.hpp"
#include "runtime/data/oplog_stream.hpp"
#include "kernels/math_op.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb::stage_ops {

uint32_t pe_key(const node_place& place, const std::string& unit_name) {
  if (!place.pe || *place.sip > 0xff || *place.cube > 0xff || *place.pe > 0xff)
    throw std::runtime_error(
      fmt::format("op log: '{}' is not a unit of a PE (sipS.cubeC.peP.unit)", unit_name));
  return *place.sip << 16 | *place.cube << 8 | *place.pe;
}

uint64_t slot_address(uint32_t pe, region r, uint32_t slot) {
  return uint64_t{3} << 60 | uint64_t{pe & 0xffffff} << 36 |
         uint64_t{static_cast<uint8_t>(r)} << 34 | uint64_t{slot % slots} << 20;
}

namespace {

/// What an epilogue (or MATH command) op does to data: a unary function, a
/// binary one with the stage's operand block, or a scale by its value.
struct math_semantics {
  math_fn fn;
  bool with_operand = false;
};

std::optional<math_semantics> semantics_of(math_op op, bool has_operand) {
  switch (op) {
  case math_op::relu: return math_semantics{math_fn::relu};
  case math_op::exp: return math_semantics{math_fn::exp};
  case math_op::rsqrt: return math_semantics{math_fn::rsqrt};
  case math_op::scale: return math_semantics{math_fn::scale};
  case math_op::bias:
  case math_op::add:
    return has_operand ? std::optional{math_semantics{math_fn::add, true}} : std::nullopt;
  case math_op::mul:
    return has_operand ? std::optional{math_semantics{math_fn::mul, true}} : std::nullopt;
  case math_op::dequant:
    return math_semantics{has_operand ? math_fn::mul : math_fn::scale, has_operand};
  }
  return std::nullopt;
}

struct tile_ctx {
  wire::TileToken::Reader token;
  wire::Stage::Reader stage;
  uint32_t pe;
  const std::string& component;

  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(fmt::format("op log: {} tile {} of command {} ({}): {}", component,
                                         token.getTile(), token.getCommand(),
                                         to_string(to_stage_type(stage.getType())), why));
  }
  tensor_view slot(region r, uint32_t rows, uint32_t cols, dtype t) const {
    uint32_t s = token.getSlot();
    if (r == region::acc)
      s = (s + slots - token.getK() % slots) % slots;
    const uint64_t bytes = uint64_t{rows} * cols * dtype_bytes(t);
    if (bytes > slot_bytes)
      fail(fmt::format("a {}x{} {} tile takes {} B; the replay's operand slots hold {} B "
                       "(use smaller tiles to verify)",
                       rows, cols, to_string(t), bytes, slot_bytes));
    return packed_view(slot_address(pe, r, s), rows, cols, t);
  }
  /// The global block of a DMA stage.
  tensor_view global(dtype t) const {
    const uint32_t e = dtype_bytes(t);
    if (stage.getRowBytes() % e != 0)
      fail(fmt::format("{} B rows are not whole {} elements", stage.getRowBytes(), to_string(t)));
    return {stage.getAddress(), stage.getRows(), static_cast<uint32_t>(stage.getRowBytes() / e),
            stage.getRowStride(), t};
  }
};

} // namespace

namespace {

/// The accumulator's element type: i32 for integer operands with no MATH
/// stage (the replay sums them exactly, as the hardware does), else f32
/// (MATH stages and epilogues compute in f32).
dtype acc_type(wire::TileToken::Reader token, dtype in) {
  if (in != dtype::i8 && in != dtype::i32)
    return dtype::f32;
  for (auto st : token.getStages())
    if (to_stage_type(st.getType()) == stage_type::math)
      return dtype::f32;
  return dtype::i32;
}

} // namespace

std::optional<op_record> op_of(wire::TileToken::Reader token, wire::Stage::Reader stage,
                               const std::string& component, uint32_t pe, SimTime start,
                               SimTime end, uint64_t id) {
  const tile_ctx c{token, stage, pe, component};
  op_record r;
  r.id = id;
  r.t_start_ps = start.ps();
  r.t_end_ps = end.ps();
  r.component = component;
  if (stage.hasDataOp()) { // a kernel's compute on TCM tensors says what it does
    op_record k = from_wire(stage.getDataOp());
    k.id = r.id;
    k.t_start_ps = r.t_start_ps;
    k.t_end_ps = r.t_end_ps;
    k.component = std::move(r.component);
    return k;
  }
  const uint32_t tm = stage.getTm(), tk = stage.getTk(), tn = stage.getTn();
  const auto in = static_cast<dtype>(stage.getInDtype());
  const auto out = static_cast<dtype>(stage.getOutDtype());
  switch (to_stage_type(stage.getType())) {
  case stage_type::dma_read: {
    r.kind = op_kind::memory;
    r.op_name = "dma_read";
    const tensor_view src = c.global(in);
    r.inputs = {src};
    if (stage.getLocalAddress() != 0)
      r.out = packed_view(stage.getLocalAddress(), src.rows, src.cols, in);
    else if (stage.getOperand() == 'A' || stage.getOperand() == 'B')
      r.out = c.slot(stage.getOperand() == 'A' ? region::a : region::b, src.rows, src.cols, in);
    else
      c.fail(fmt::format("a DMA read of operand {} has no slot", int(stage.getOperand())));
    return r;
  }
  case stage_type::dma_write: {
    r.kind = op_kind::memory;
    r.op_name = "dma_write";
    r.out = c.global(out);
    r.inputs = {stage.getLocalAddress() != 0
                  ? packed_view(stage.getLocalAddress(), r.out.rows, r.out.cols, out)
                  : c.slot(region::c, r.out.rows, r.out.cols, out)};
    return r;
  }
  case stage_type::fetch:
    return std::nullopt;
  case stage_type::gemm: {
    // A pinned operand is read in place; the other comes through its slot.
    const bool has_ops = stage.hasOperands();
    const auto ops = stage.getOperands();
    auto input = [&](char operand, bool pinned, auto pinned_view, region slot, uint32_t rows,
                     uint32_t cols) {
      if (pinned) {
        const tensor_view v = from_wire(pinned_view);
        if (v.rows != rows || v.cols != cols)
          c.fail(fmt::format("its pinned {} block is {}x{}, not {}x{}", operand, v.rows, v.cols,
                             rows, cols));
        return v;
      }
      bool read = false;
      for (auto st : token.getStages())
        read |= to_stage_type(st.getType()) == stage_type::dma_read && st.getOperand() == operand;
      if (!read)
        c.fail(fmt::format("operand {} is neither read by a DMA stage nor pinned with a block",
                           operand));
      return c.slot(slot, rows, cols, in);
    };
    r.kind = op_kind::gemm;
    r.op_name = fmt::format("gemm_{}", to_string(in));
    r.inputs = {input('A', has_ops && ops.hasA(), ops.getA(), region::a, tm, tk),
                input('B', has_ops && ops.hasB(), ops.getB(), region::b, tk, tn)};
    r.out = c.slot(region::acc, tm, tn, acc_type(token, in));
    r.accumulate = token.getK() != 0;
    return r;
  }
  case stage_type::math: {
    if (stage.getOp() == 255)
      c.fail("a MATH stage without an op");
    const auto op = static_cast<math_op>(stage.getOp());
    const bool epilogue = stage.getScope() != 0;
    const bool has_operand = epilogue && stage.hasOperands() && stage.getOperands().hasA();
    const auto sem = semantics_of(op, has_operand);
    if (!sem)
      c.fail(fmt::format("math op '{}' has no operand {}, so the replay cannot compute it{}",
                         to_string(op), epilogue ? "in its epilogue" : "in a MATH command",
                         epilogue ? " (give the epilogue op an operand tensor)" : ""));
    r.kind = op_kind::math;
    r.fn = sem->fn;
    r.op_name = std::string(to_string(sem->fn));
    if (sem->fn == math_fn::scale)
      r.scalar = stage.hasOperands() ? stage.getOperands().getValue() : 1.0;
    r.out = c.slot(region::acc, tm, tn, dtype::f32);
    // An epilogue works on the accumulator in place; a MATH command's tile
    // reads its input slot.
    r.inputs = {epilogue ? r.out : c.slot(region::a, tm, tn, in)};
    if (sem->with_operand) {
      const tensor_view v = from_wire(stage.getOperands().getA());
      if (v.cols != tn || (v.rows != 1 && v.rows != tm))
        c.fail(fmt::format("its operand block is {}x{}; the tile is {}x{}", v.rows, v.cols, tm,
                           tn));
      r.inputs.push_back(v);
    }
    return r;
  }
  case stage_type::store:
    r.kind = op_kind::memory;
    r.op_name = "store";
    r.inputs = {c.slot(region::acc, tm, tn, acc_type(token, in))};
    r.out = c.slot(region::c, tm, tn, out);
    return r;
  }
  c.fail("unknown stage type");
}

} // namespace kb::stage_ops
