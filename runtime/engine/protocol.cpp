#include "runtime/engine/protocol.hpp"

#include "runtime/engine/control_wire.hpp"

#include <algorithm>

#include "messages/sim.capnp.h"

#include <caf/actor.hpp>
#include <caf/local_actor.hpp>
#include <caf/mailbox_element.hpp>
#include <capnp/serialize.h>

#include <cstring>
#include <mutex>
#include <set>
#include <string>

namespace kb {

namespace {

wire::BatchKind to_wire(batch_kind k) {
  switch (k) {
    case batch_kind::advance: return wire::BatchKind::ADVANCE;
    case batch_kind::report: return wire::BatchKind::REPORT;
    case batch_kind::peer: return wire::BatchKind::PEER;
  }
  return wire::BatchKind::ADVANCE;
}

batch_kind from_wire(wire::BatchKind k) {
  switch (k) {
    case wire::BatchKind::ADVANCE: return batch_kind::advance;
    case wire::BatchKind::REPORT: return batch_kind::report;
    case wire::BatchKind::PEER: return batch_kind::peer;
  }
  throw std::runtime_error("malformed batch: unknown batch kind");
}

} // namespace

void post(caf::local_actor* self, const caf::actor& dest, event_batch&& b) {
  dest->enqueue(caf::make_mailbox_element(nullptr, caf::make_message_id(), {},
                                          std::move(b)),
                self->context());
}

std::vector<char> encode_batch(const event_batch& b) {
  capnp::MallocMessageBuilder msg;
  auto root = msg.initRoot<wire::Batch>();
  root.setKind(to_wire(b.kind));
  root.setNode(b.node);
  root.setTime(b.time.ps());
  root.setFrom(b.from);
  root.setNeed(b.need);
  root.setAcked(b.acked);
  if (!b.error.empty())
    root.setError(b.error);
  auto evs = root.initEvents(static_cast<unsigned>(b.events.size()));
  for (unsigned i = 0; i < b.events.size(); ++i) {
    const sim_event& e = b.events[i];
    auto w = evs[i];
    w.setTime(e.t.ps());
    w.setSrc(e.src);
    w.setSeq(e.seq);
    w.setTail(e.tail.ps());
    w.setDst(e.dst);
    w.setQueue(e.queue);
    w.setKind(e.kind);
    w.setLink(e.link);
    w.setArg0(e.arg0);
    w.setArg1(e.arg1);
    w.setBytes(e.bytes);
    if (!e.body.empty()) {
      auto src = const_cast<capnp::MallocMessageBuilder&>(e.body.builder())
                   .getRoot<capnp::AnyStruct>()
                   .asReader();
      w.initBody().setAs<capnp::AnyStruct>(src);
    }
  }
  auto words = capnp::messageToFlatArray(msg);
  auto bytes = words.asChars();
  return std::vector<char>(bytes.begin(), bytes.end());
}

event_batch decode_batch(const std::vector<char>& bytes) {
  const kj::Array<capnp::word> words = aligned_words(bytes, "batch");
  capnp::FlatArrayMessageReader reader(words, bounded_reader(words.size()));
  auto root = reader.getRoot<wire::Batch>();
  event_batch b;
  b.kind = from_wire(root.getKind());
  b.node = root.getNode();
  b.time = SimTime{root.getTime()};
  b.from = root.getFrom();
  b.need = root.getNeed();
  b.acked = root.getAcked();
  b.error = root.getError().cStr();
  auto evs = root.getEvents();
  b.events.reserve(evs.size());
  for (auto w : evs) {
    sim_event e;
    e.set_key(SimTime{w.getTime()}, w.getSrc(), w.getSeq());
    e.tail = SimTime{w.getTail()};
    e.dst = w.getDst();
    e.queue = w.getQueue();
    e.kind = w.getKind();
    e.link = w.getLink();
    e.arg0 = w.getArg0();
    e.arg1 = w.getArg1();
    e.bytes = w.getBytes();
    if (w.hasBody())
      e.body = message_body::copy_of(w.getBody().getAs<capnp::AnyStruct>());
    b.events.push_back(std::move(e));
  }
  return b;
}

const node_summary* find_node(const run_result& r, std::string_view name) {
  // Summaries come sorted by node id, which is the order of the names.
  auto it = std::lower_bound(r.nodes.begin(), r.nodes.end(), name,
                             [](const node_summary& n, std::string_view v) { return n.name < v; });
  if (it != r.nodes.end() && it->name == name)
    return &*it;
  for (const auto& n : r.nodes) // a result assembled in another order
    if (n.name == name)
      return &n;
  return nullptr;
}

uint64_t figure_or_zero(const node_summary& n, const stat_decl& s, std::string_view q) {
  for (const auto& f : n.figures)
    if (f.stat == s.id && f.qualifier == q)
      return f.value;
  return 0;
}

uint64_t figure_of(const run_result& r, const std::string& node, const std::string& name) {
  if (const node_summary* n = find_node(r, node))
    for (const auto& f : n->figures)
      if (f.name() == name)
        return f.value;
  throw std::runtime_error("no figure " + name + " of " + node);
}

std::vector<uint64_t> series_of(const run_result& r, const std::string& node,
                                const std::string& name) {
  std::vector<uint64_t> out;
  if (const node_summary* n = find_node(r, node))
    for (const auto& f : n->figures)
      if (f.name() == name)
        out.push_back(f.value);
  return out;
}

} // namespace kb
