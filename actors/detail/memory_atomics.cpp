// Atomics at the memory that owns their bytes (docs/adr/0027): a kernel's
// tl.atomic_add / tl.atomic_max arrives as a mem_write whose MemAccess says
// `atomic`. The memory applies it when it serves it, in arrival order, so
// atomics of any PEs on the same bytes take effect one after the other; the
// ack tells the requesting PE_DMA when (`applied`), and that time is the op
// record's t_start, which orders the replay of these atomics the same way.
#include "actors/detail/memory_server.hpp"

#include "messages/memory.capnp.h"
#include "runtime/data/op_atomic.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb::detail {

void memory_server_node::serve_atomic_request(const sim_event& ev, uint32_t back) {
  auto a = ev.body.root<wire::MemAccess>();
  const mem_tag tag = mem_tag::unpack(ev.arg1);
  const uint64_t length = tag.length;
  const uint64_t rows = a.getRows(), row_bytes = a.getRowBytes(), stride = a.getStride();
  const std::string who = a.hasWho() ? fmt::format(" (kernel {})", a.getWho().cStr()) : "";
  const auto fn = static_cast<math_fn>(a.getAtomicFn());
  const auto type = static_cast<dtype>(a.getAtomicType());
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{}: an atomic at {}{} (command {}): {}", node_name(),
                                         describe_address(ev.arg0), who, a.getCommand(), why));
  };
  if (!is_atomic(fn) || (type != dtype::f32 && type != dtype::i32))
    fail(fmt::format("operation {} on {} elements is not an atomic this memory applies",
                     to_string(fn), to_string(type)));
  if (rows * row_bytes != length || (rows > 1 && stride < row_bytes) || ev.bytes != length)
    fail(fmt::format("{} rows of {} B every {} B do not match its {} B request", rows, row_bytes,
                     stride, length));
  const uint64_t span = rows == 0 ? 0 : (rows - 1) * stride + row_bytes;
  const uint64_t last = span == 0 ? ev.arg0 : ev.arg0 + (span - 1);
  if (last < ev.arg0 || port_.find_memory(last) != id())
    fail(fmt::format("its {} B run past the end of this memory", span));
  const tensor_view block = pending_writes::bytes_block(ev.arg0, rows, row_bytes, stride);
  if (a.getPending() || pending_.find(block)) {
    // The operand or the bytes are a compute result: so is the sum, known
    // only in the Phase 2 replay.
    pending_.add(block, {tag.requester, a.getCommand(), a.getWho().cStr()});
  } else {
    const auto data = a.getData();
    if (data.size() != length)
      fail(fmt::format("it carries {} B of operand", data.size()));
    std::vector<uint8_t> bytes(length);
    image_.read_rows(ev.arg0, stride, rows, row_bytes, bytes);
    apply_atomic(fn, type, bytes, std::span<const uint8_t>(data.begin(), data.size()));
    image_.write_rows(ev.arg0, stride, rows, row_bytes, bytes);
  }
  ++atomics_;
  const memory_rmw r = serve_atomic(ev.t, ev.tail, ev.arg0, length);
  // One memory applies its atomics one at a time: their times strictly
  // increase in the order it applied them (a per-channel model may start a
  // later one earlier on another channel; it still comes after).
  const SimTime applied =
    !last_applied_ || r.start > *last_applied_ ? r.start : *last_applied_ + SimTime{1};
  last_applied_ = applied;
  auto msg = std::make_unique<capnp::MallocMessageBuilder>(16);
  auto ack = msg->initRoot<wire::MemAccess>();
  ack.setAtomic(true);
  ack.setApplied(applied.ps());
  outgoing m;
  m.kind = kind_of(pipe_kind::mem_ack);
  m.arg0 = ev.arg0;
  m.arg1 = ev.arg1;
  m.head = r.ack;
  m.tail = r.ack;
  m.body = message_body{std::move(msg)};
  send_on(back, std::move(m));
}

} // namespace kb::detail
