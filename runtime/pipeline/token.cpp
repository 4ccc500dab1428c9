#include "runtime/pipeline/token.hpp"

#include "runtime/data/oplog_stream.hpp"

#include <cstring>
#include <memory>
#include <new>

namespace kb {

static_assert(static_cast<uint16_t>(wire::UnitRole::DMA) == uint16_t(unit_role::dma) &&
              static_cast<uint16_t>(wire::UnitRole::FETCH_STORE) ==
                uint16_t(unit_role::fetch_store) &&
              static_cast<uint16_t>(wire::UnitRole::GEMM) == uint16_t(unit_role::gemm) &&
              static_cast<uint16_t>(wire::UnitRole::MATH) == uint16_t(unit_role::math));

void to_wire(const stage& s, wire::Stage::Builder out) {
  const stage_params& p = s.params;
  out.setType(static_cast<wire::StageType>(static_cast<uint16_t>(s.type)));
  out.setUnit(static_cast<wire::UnitRole>(s.unit));
  out.setOperand(static_cast<uint8_t>(p.operand));
  out.setAddress(p.address);
  out.setRowStride(p.row_stride_bytes);
  out.setRows(p.rows);
  out.setRowBytes(p.row_bytes);
  out.setBytes(p.bytes);
  out.setTm(p.tm);
  out.setTk(p.tk);
  out.setTn(p.tn);
  out.setElements(p.elements);
  out.setOp(p.op ? static_cast<uint8_t>(*p.op) : 255);
  out.setInDtype(static_cast<uint8_t>(p.in_dtype));
  out.setOutDtype(static_cast<uint8_t>(p.out_dtype));
  out.setScope(p.scope ? static_cast<uint8_t>(*p.scope) + 1 : 0);
  out.setLastK(p.last_k);
  out.setLocalAddress(p.local_address);
  out.setWantData(p.want_data);
  if (p.pinned_a || p.pinned_b || p.operand_block || p.value != 1.0) {
    auto o = out.initOperands();
    if (p.pinned_a)
      to_wire(*p.pinned_a, o.initA());
    else if (p.operand_block)
      to_wire(*p.operand_block, o.initA());
    if (p.pinned_b)
      to_wire(*p.pinned_b, o.initB());
    o.setValue(p.value);
  }
}

stage from_wire(wire::Stage::Reader in) {
  stage s;
  s.type = to_stage_type(in.getType());
  s.unit = static_cast<unit_role>(in.getUnit());
  stage_params& p = s.params;
  p.operand = static_cast<char>(in.getOperand());
  p.address = in.getAddress();
  p.row_stride_bytes = in.getRowStride();
  p.rows = in.getRows();
  p.row_bytes = in.getRowBytes();
  p.bytes = in.getBytes();
  p.tm = in.getTm();
  p.tk = in.getTk();
  p.tn = in.getTn();
  p.elements = in.getElements();
  if (in.getOp() != 255)
    p.op = static_cast<math_op>(in.getOp());
  p.in_dtype = static_cast<dtype>(in.getInDtype());
  p.out_dtype = static_cast<dtype>(in.getOutDtype());
  if (in.getScope() != 0)
    p.scope = static_cast<epilogue_scope>(in.getScope() - 1);
  p.last_k = in.getLastK();
  p.local_address = in.getLocalAddress();
  p.want_data = in.getWantData();
  if (in.hasOperands()) {
    const auto o = in.getOperands();
    if (o.hasA()) {
      if (s.type == stage_type::gemm)
        p.pinned_a = from_wire(o.getA());
      else
        p.operand_block = from_wire(o.getA());
    }
    if (o.hasB())
      p.pinned_b = from_wire(o.getB());
    p.value = o.getValue();
  }
  return s;
}

void to_wire(const op_record& r, wire::DataOp::Builder out) {
  out.setKind(static_cast<uint8_t>(r.kind));
  out.setFn(static_cast<uint8_t>(r.fn));
  out.setName(r.op_name);
  auto in = out.initInputs(static_cast<unsigned>(r.inputs.size()));
  for (unsigned i = 0; i < r.inputs.size(); ++i)
    to_wire(r.inputs[i], in[i]);
  to_wire(r.out, out.initOut());
  out.setAccumulate(r.accumulate);
  out.setTransposeA(r.transpose_a);
  out.setTransposeB(r.transpose_b);
  out.setScalar(r.scalar);
  out.setAxis(static_cast<int8_t>(r.axis));
}

op_record from_wire(wire::DataOp::Reader in) {
  op_record r;
  r.kind = static_cast<op_kind>(in.getKind());
  r.fn = static_cast<math_fn>(in.getFn());
  r.op_name = in.getName().cStr();
  for (auto v : in.getInputs())
    r.inputs.push_back(from_wire(v));
  r.out = from_wire(in.getOut());
  r.accumulate = in.getAccumulate();
  r.transpose_a = in.getTransposeA();
  r.transpose_b = in.getTransposeB();
  r.scalar = in.getScalar();
  r.axis = in.getAxis();
  return r;
}

size_t token_words(const tile_plan& tile) {
  using capnp::sizeInWords;
  size_t words = 1 + sizeInWords<wire::TileToken>() // the root pointer, the token
                 + 1 + tile.stages.size() * sizeInWords<wire::Stage>(); // the list's tag
  for (const stage& s : tile.stages) {
    const stage_params& p = s.params;
    const bool a = p.pinned_a || p.operand_block, b = p.pinned_b.has_value();
    if (a || b || p.value != 1.0) // as to_wire writes them
      words += sizeInWords<wire::StageOperands>() + (a + b) * sizeInWords<wire::TensorView>();
  }
  return words;
}

namespace {

/// A message whose first segment lies right after the builder, in one
/// allocation: a token costs one malloc and one free, not two of each (a
/// token is made and dropped for every tile).
class token_message final : public capnp::MallocMessageBuilder {
public:
  static std::unique_ptr<capnp::MallocMessageBuilder> make(size_t words) {
    void* p = ::operator new(sizeof(token_message) + words * sizeof(capnp::word));
    auto* first = reinterpret_cast<capnp::word*>(static_cast<char*>(p) + sizeof(token_message));
    std::memset(first, 0, words * sizeof(capnp::word)); // Cap'n Proto wants it zeroed
    try {
      return std::unique_ptr<capnp::MallocMessageBuilder>(
        new (p) token_message(kj::arrayPtr(first, words)));
    } catch (...) {
      ::operator delete(p);
      throw;
    }
  }
  // The deleting destructor (message_body's delete through the base) frees
  // the one block, the segment with it.
  static void operator delete(void* p) { ::operator delete(p); }

private:
  explicit token_message(kj::ArrayPtr<capnp::word> first) : MallocMessageBuilder(first) {}
};
static_assert(sizeof(token_message) % alignof(capnp::word) == 0);

} // namespace

message_body make_token(const tile_plan& tile, uint64_t command, node_id scheduler,
                        uint32_t slot) {
  // One segment of what the plan needs: every token in flight holds it (a
  // fixed 256 words was 2 KB a token, 14 KB a PE; issue 31). Bytes a load
  // or store carries later take a segment of their own.
  auto msg = token_message::make(token_words(tile));
  auto t = msg->initRoot<wire::TileToken>();
  t.setCommand(command);
  t.setTile(tile.tile_id);
  t.setStageIdx(0);
  t.setScheduler(scheduler);
  t.setSlot(slot);
  t.setM(tile.m);
  t.setN(tile.n);
  t.setK(tile.k);
  auto stages = t.initStages(static_cast<unsigned>(tile.stages.size()));
  for (unsigned i = 0; i < tile.stages.size(); ++i)
    to_wire(tile.stages[i], stages[i]);
  return message_body{std::move(msg)};
}

} // namespace kb
