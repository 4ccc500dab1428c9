#include "runtime/trace/trace_recorder.hpp"

#include "messages/trace.capnp.h"

#include <capnp/serialize.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace kb {

void trace_recorder::record(trace_kind kind, SimTime t, node_id node,
                            const service_tag& tag) {
  records_.push_back(
    {kind, t, node, static_cast<uint32_t>(records_.size()), tag, no_node, SimTime{}});
}

trace_record message_record(const message_note& m, uint32_t seq, const service_tag& tag) {
  service_tag t = tag;
  t.lane = m.queue;
  return {trace_kind::message_hop, m.t, m.node, seq, t, m.peer, m.head, m.tail, m.seq, m.credits};
}

trace_record service_record(SimTime t, node_id node, uint32_t seq, SimTime begin, SimTime end,
                            const service_tag& tag) {
  return {trace_kind::service, t, node, seq, tag, no_node, begin, end, 0};
}

void trace_recorder::message(const message_note& m, const service_tag& tag) {
  records_.push_back(message_record(m, static_cast<uint32_t>(records_.size()), tag));
}

void trace_recorder::service(SimTime t, node_id node, SimTime begin, SimTime end,
                             const service_tag& tag) {
  records_.push_back(
    service_record(t, node, static_cast<uint32_t>(records_.size()), begin, end, tag));
}

std::vector<char> trace_recorder::take_records() {
  capnp::MallocMessageBuilder msg;
  auto list = msg.initRoot<wire::TraceChunk>().initRecords(
    static_cast<unsigned>(records_.size()));
  for (unsigned i = 0; i < records_.size(); ++i)
    to_wire(records_[i], list[i]);
  records_.clear();
  auto words = capnp::messageToFlatArray(msg);
  auto bytes = words.asChars();
  return {bytes.begin(), bytes.end()};
}

std::vector<trace_record> merge_records(const std::vector<node_summary>& nodes) {
  std::vector<trace_record> out;
  for (const auto& n : nodes) {
    if (n.records.empty())
      continue;
    if (n.records.size() % sizeof(capnp::word) != 0)
      throw std::runtime_error("malformed trace records from " + n.name);
    auto words = kj::heapArray<capnp::word>(n.records.size() / sizeof(capnp::word));
    std::memcpy(words.begin(), n.records.data(), n.records.size());
    capnp::ReaderOptions opts;
    opts.traversalLimitInWords = uint64_t{1} << 40;
    capnp::FlatArrayMessageReader reader(words, opts);
    for (auto w : reader.getRoot<wire::TraceChunk>().getRecords())
      out.push_back(from_wire_record(w));
  }
  std::sort(out.begin(), out.end(), [](const trace_record& a, const trace_record& b) {
    return std::tie(a.t, a.node, a.seq) < std::tie(b.t, b.node, b.seq);
  });
  return out;
}

} // namespace kb
