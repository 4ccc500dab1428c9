#pragma once
// The recorder behind every node's hooks when tracing is on: keeps the
// node's records in order and hands them back as a Cap'n Proto TraceChunk.

#include "runtime/engine/protocol.hpp"
#include "runtime/engine/recorder.hpp"

#include <vector>

namespace kb {

struct trace_record {
  trace_kind kind;
  SimTime t;
  node_id node;
  uint32_t seq; ///< per node, in the order the node recorded them
  service_tag tag;
  node_id peer = no_node; ///< message hop: destination
  SimTime arrival{};      ///< message hop: head arrival; service: its begin
  SimTime until{};        ///< message hop: tail arrival; service: its end
  uint64_t msg_seq = 0;   ///< hop: the message's number at its sender
  /// hop into a bounded queue (tag.lane = queue + 1): the sender's credits
  /// left for it after this message
  uint32_t credits = 0;
};

/// The record of a message hop (tag.lane: its bounded queue + 1, or 0).
trace_record message_record(const message_note& m, uint32_t seq, const service_tag& tag);
/// The record of a service span.
trace_record service_record(SimTime t, node_id node, uint32_t seq, SimTime begin, SimTime end,
                            const service_tag& tag);

class trace_recorder final : public recorder {
public:
  explicit trace_recorder(bool hops = false) : hops_(hops) {}
  void message(const message_note& m, const service_tag& tag) override;
  void service(SimTime t, node_id node, SimTime begin, SimTime end,
               const service_tag& tag) override;
  bool wants_hops() const override { return hops_; }
  void record(trace_kind kind, SimTime t, node_id node,
              const service_tag& tag) override;
  std::vector<char> take_records() override;

private:
  bool hops_;
  std::vector<trace_record> records_;
};

/// Conversion to and from the Cap'n Proto TraceRecord (messages/trace.capnp).
template <class Builder>
void to_wire(const trace_record& r, Builder w) {
  w.setKind(static_cast<decltype(w.getKind())>(r.kind));
  w.setTime(r.t.ps());
  w.setNode(r.node);
  w.setSeq(r.seq);
  w.setLane(r.tag.lane);
  w.setWhat(r.tag.what);
  w.setItem(r.tag.item);
  w.setContext(r.tag.context);
  w.setBytes(r.tag.bytes);
  w.setPeer(r.peer);
  w.setArrival(r.arrival.ps());
  w.setUntil(r.until.ps());
  w.setMsgSeq(r.msg_seq);
  w.setCredits(r.credits);
}

template <class Reader>
trace_record from_wire_record(Reader w) {
  return {static_cast<trace_kind>(w.getKind()), SimTime{w.getTime()}, w.getNode(),
          w.getSeq(),
          service_tag{w.getLane(), w.getWhat(), w.getItem(), w.getContext(), w.getBytes()},
          w.getPeer(), SimTime{w.getArrival()}, SimTime{w.getUntil()}, w.getMsgSeq(),
          w.getCredits()};
}

/// All records of a run, merged in key order (time, node, seq): the same
/// whatever the thread or process count.
std::vector<trace_record> merge_records(const std::vector<node_summary>& nodes);

} // namespace kb
