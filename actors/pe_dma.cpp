#include "actors/pe_dma.hpp"

#include "runtime/machine/pipeline_stats.hpp"

#include "actors/detail/names.hpp"
#include "messages/memory.capnp.h"
#include "runtime/address.hpp"
#include "runtime/data/op_record.hpp"
#include "runtime/pipeline/token.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace kb {

namespace {
constexpr unit_node::lane_id read_lane = 0;
constexpr unit_node::lane_id write_lane = 1;
constexpr uint16_t setup_timer = kind_of(pipe_kind::timer);
constexpr uint16_t tail_timer = kind_of(pipe_kind::timer) + 1;

/// Whether a DMA write stage is an atomic (docs/adr/0027): its data op says so.
bool is_atomic_stage(wire::Stage::Reader s) {
  return s.hasDataOp() && static_cast<op_kind>(s.getDataOp().getKind()) == op_kind::math &&
         is_atomic(static_cast<math_fn>(s.getDataOp().getFn()));
}
} // namespace

const impl_decl<pe_dma::config>& pe_dma::decl() {
  static const impl_decl<config> d = impl_decl<config>{
    "pe_dma",
    "DMA engine: a read and a write channel of capacity 1 each; setup, then the request toward "
    "the owning memory by the fabric routes (XBAR for the own HBM, NOC for the rest); busy "
    "until the data tail / the write ack",
    {param(&config::setup, "dma_setup_cycles", "paid by every DMA stage before its request leaves")
       .init(Cycles{8})}}
      .reports(lane_stats::all);
  return d;
}

pe_dma::config pe_dma::read_config(const param_reader& p,
                                   const machine_context& ctx) {
  config c = decl().read(p);
  c.clock = ctx.clock;
  c.fabric = ctx.fabric;
  return c;
}

pe_dma::pe_dma(caf::actor_config& cfg, node_init init, config c)
  : unit_node(cfg, std::move(init),
              {stage_type::dma_read, stage_type::dma_write}),
    cfg_(c), port_(c.fabric) {}

void pe_dma::begin_stage(lane_id lane, wire::Stage::Reader) {
  schedule(now() + cfg_.clock.to_time(cfg_.setup), setup_timer, lane);
}

uint32_t pe_dma::egress_for(uint64_t address, lane_id lane) {
  if (const auto mmu = port_.map().via(id())) { // every request through the MMU (ADR-0015)
    if (!mmu_link_) {
      mmu_link_ = find_link_to(*mmu);
      if (!mmu_link_) // the fabric's routes come from these very links
        throw std::logic_error(node_name() + ": no link to " + port_.map().name(*mmu));
    }
    return *mmu_link_;
  }
  return route_for(address, lane);
}

uint32_t pe_dma::route_for(uint64_t address, lane_id lane) {
  auto fail = [&](const std::string& why) {
    auto t = token(lane);
    throw std::runtime_error(fmt::format("{}: tile {} (command {}): a DMA to {}: {}", node_name(),
                                         t.getTile(), t.getCommand(),
                                         detail::describe_address(address), why));
  };
  const std::optional<node_id> memory = port_.find_memory(address);
  if (!memory)
    fail("the machine has no such memory");
  try {
    return port_.link_toward(id(), *memory, [this](node_id n) { return find_link_to(n); });
  } catch (const std::runtime_error& e) {
    fail(e.what());
  }
  return 0; // not reached: fail() throws
}

void pe_dma::send_request(lane_id lane) {
  auto s = stage(lane);
  const uint64_t bytes = s.getBytes();
  if (bytes > std::numeric_limits<uint32_t>::max())
    throw std::runtime_error(fmt::format(
      "{}: tile {}: a DMA stage of {} bytes exceeds the 4 GiB request limit",
      node_name(), token(lane).getTile(), bytes));
  const uint32_t l = egress_for(s.getAddress(), lane);
  outgoing m;
  m.kind = kind_of(lane == read_lane ? pipe_kind::mem_read : pipe_kind::mem_write);
  m.bytes = lane == read_lane ? 0 : bytes;
  m.arg0 = s.getAddress();
  m.arg1 = mem_tag{id(), static_cast<uint32_t>(bytes)}.pack();
  auto t = token(lane);
  // A kernel's load or store, or a kernel's write of a compute result.
  if (lane == read_lane ? s.getWantData() : t.hasData() || t.hasWho() || is_atomic_stage(s))
    m.body = data_request(lane, s, t);
  waiting_[lane] = true;
  send_on(l, std::move(m));
}

message_body pe_dma::data_request(lane_id lane, wire::Stage::Reader s,
                                  wire::TileToken::Reader t) const {
  const bool carries = lane == write_lane && t.hasData();
  auto msg = std::make_unique<capnp::MallocMessageBuilder>(carries ? 64 + s.getBytes() / 8 : 64);
  auto a = msg->initRoot<wire::MemAccess>();
  a.setRows(s.getRows());
  a.setRowBytes(s.getRowBytes());
  a.setStride(s.getRowStride());
  a.setWho(t.getWho());
  a.setCommand(t.getCommand());
  if (lane == write_lane && is_atomic_stage(s)) { // applied at the memory
    a.setAtomic(true);
    a.setAtomicFn(s.getDataOp().getFn());
    a.setAtomicType(s.getOutDtype());
  }
  if (lane == read_lane)
    a.setWantData(true);
  else if (t.hasData())
    a.setData(t.getData());
  else
    a.setPending(true); // a compute result: its bytes exist only in Phase 2
  return message_body{std::move(msg)};
}

void pe_dma::on_reply(lane_id lane, sim_event& ev) {
  if (!waiting_[lane])
    throw std::runtime_error(fmt::format(
      "{}: a memory reply (kind {}) for {} arrived while the {} channel "
      "waits for none",
      node_name(), ev.kind, detail::describe_address(ev.arg0),
      lane == read_lane ? "read" : "write"));
  // Through an MMU the reply names the translated address: nothing to compare.
  if (!mmu_link_ && ev.arg0 != stage(lane).getAddress())
    throw std::runtime_error(fmt::format(
      "{}: a memory reply for {} arrived, but the {} channel waits for {}",
      node_name(), detail::describe_address(ev.arg0),
      lane == read_lane ? "read" : "write",
      detail::describe_address(stage(lane).getAddress())));
  waiting_[lane] = false;
  if (lane == write_lane && is_atomic_stage(stage(lane))) {
    // Recorded when the memory applied it, so the replay orders it as the
    // memory did (docs/adr/0027).
    if (ev.body.empty() || !ev.body.root<wire::MemAccess>().getAtomic())
      throw std::runtime_error(fmt::format("{}: the atomic at {} was acked without its time",
                                           node_name(), detail::describe_address(ev.arg0)));
    record_start(lane, SimTime{ev.body.root<wire::MemAccess>().getApplied()});
  }
  if (lane == read_lane && stage(lane).getWantData()) {
    if (ev.body.empty())
      throw std::runtime_error(fmt::format("{}: a kernel load from {} got no data back",
                                           node_name(), detail::describe_address(ev.arg0)));
    const auto reply = ev.body.root<wire::MemAccess>();
    if (reply.getPending()) // a compute result's bytes: the kernel gets a pending tensor
      token_builder(lane).setPendingFrom(reply.getWho());
    else
      token_builder(lane).setData(reply.getData());
    if (stage(lane).getLocalAddress() != 0)
      fill_tcm(lane, reply);
  }
  if (ev.tail > now())
    schedule(ev.tail, tail_timer, lane); // the read data's tail is still coming
  else
    end_stage(lane);
}

void pe_dma::fill_tcm(lane_id lane, wire::MemAccess::Reader reply) {
  const capnp::Data::Reader data = reply.getData();
  const uint64_t length = reply.getPending() ? uint64_t{reply.getRows()} * reply.getRowBytes()
                                             : data.size();
  // The loaded bytes land in the TCM block the kernel's tensor names, so
  // that the TCM's own contents (which other PEs may load) hold them too. The
  // write leaves with the data's tail and the stage does not wait for it.
  auto s = stage(lane);
  const uint64_t at = s.getLocalAddress();
  // A machine without a route from this DMA to that TCM has no way to read
  // it from elsewhere either: nothing to fill.
  const auto tcm = port_.map().memory_of(at);
  if (!tcm || !port_.map().next_hop(id(), *tcm))
    return;
  auto msg = std::make_unique<capnp::MallocMessageBuilder>(64 + data.size() / 8);
  auto a = msg->initRoot<wire::MemAccess>();
  a.setRows(1);
  a.setRowBytes(length);
  a.setStride(length);
  if (reply.getPending()) { // the TCM marks them: other PEs' loads get "pending" too
    a.setPending(true);
    a.setCommand(token(lane).getCommand());
  } else {
    a.setData(data);
  }
  a.setWho(token(lane).getWho());
  outgoing m;
  m.kind = kind_of(pipe_kind::mem_write);
  m.bytes = length;
  m.arg0 = at;
  m.arg1 = mem_tag{id(), static_cast<uint32_t>(length)}.pack();
  m.body = message_body{std::move(msg)};
  fills_.push_back(at);
  send_on(route_for(at, lane), std::move(m)); // a physical address: not through the MMU
}

void pe_dma::on_message(sim_event& ev) {
  switch (ev.kind) {
  case setup_timer:
    send_request(static_cast<lane_id>(ev.arg0));
    return;
  case tail_timer:
    end_stage(static_cast<lane_id>(ev.arg0));
    return;
  case kind_of(pipe_kind::mem_data):
    on_reply(read_lane, ev);
    return;
  case kind_of(pipe_kind::mem_ack):
    if (auto f = std::find(fills_.begin(), fills_.end(), ev.arg0);
        f != fills_.end() && !(waiting_[write_lane] && stage(write_lane).getAddress() == ev.arg0)) {
      fills_.erase(f); // a TCM fill is in
      return;
    }
    on_reply(write_lane, ev);
    return;
  default:
    throw std::runtime_error(
      fmt::format("{}: unexpected message kind {}", node_name(), ev.kind));
  }
}

service_time_fn pe_dma::service_time(const config& c, const machine_context&) {
  return [c](const service_request& r) {
    const SimTime leave = r.in.head + c.clock.to_time(c.setup);
    return crossing{leave, leave};
  };
}

} // namespace kb
