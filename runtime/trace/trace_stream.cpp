#include "runtime/trace/trace_stream.hpp"

#include "messages/trace.capnp.h"

#include <capnp/serialize.h>

#include <kj/io.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace kb {

trace_stream_writer::trace_stream_writer(const std::string& path, bool hops, const char* what,
                                         bool stages_only)
  : hops_(hops), stages_only_(stages_only), file_(path, what) {
  capnp::MallocMessageBuilder msg;
  msg.initRoot<wire::TraceStreamPart>().setHeader(trace_stream_magic);
  const auto words = capnp::messageToFlatArray(msg);
  std::lock_guard lock(mutex_);
  write_part_locked(words.asBytes());
}

void trace_stream_writer::write_part_locked(const kj::ArrayPtr<const kj::byte>& bytes) {
  file_.stream().write(reinterpret_cast<const char*>(bytes.begin()),
                       static_cast<std::streamsize>(bytes.size()));
}

namespace {

/// The file's stream as a kj::OutputStream: a message's segment table and
/// segments go to it as they are, with no flat copy of the message.
class ostream_output final : public kj::OutputStream {
public:
  explicit ostream_output(std::ostream& out) : out_(out) {}
  void write(const void* buffer, size_t size) override {
    out_.write(static_cast<const char*>(buffer), static_cast<std::streamsize>(size));
  }

private:
  std::ostream& out_;
};

/// Words for a chunk's message: one segment of a full chunk (a header
/// word, the list's tag word, the records), kept per thread so building a
/// chunk allocates nothing.
kj::ArrayPtr<capnp::word> chunk_scratch() {
  constexpr size_t words =
    4 + stream_recorder::chunk_records * (capnp::sizeInWords<wire::TraceRecord>() + 1);
  thread_local kj::Array<capnp::word> scratch = kj::heapArray<capnp::word>(words);
  std::memset(scratch.begin(), 0, scratch.size() * sizeof(capnp::word));
  return scratch;
}

} // namespace

void trace_stream_writer::write_chunk(const std::vector<trace_record>& records) {
  capnp::MallocMessageBuilder msg(chunk_scratch());
  auto list = msg.initRoot<wire::TraceStreamPart>().initChunk().initRecords(
    static_cast<unsigned>(records.size()));
  for (unsigned i = 0; i < records.size(); ++i)
    to_wire(records[i], list[i]);
  std::lock_guard lock(mutex_);
  ostream_output out(file_.stream());
  capnp::writeMessage(out, msg);
  records_ += records.size();
}

void trace_stream_writer::finish(const std::vector<std::string>& names) {
  capnp::MallocMessageBuilder msg;
  auto ns = msg.initRoot<wire::TraceStreamPart>().initNodes(static_cast<unsigned>(names.size()));
  for (unsigned i = 0; i < names.size(); ++i)
    ns.set(i, names[i]);
  const auto words = capnp::messageToFlatArray(msg);
  std::lock_guard lock(mutex_);
  write_part_locked(words.asBytes());
  file_.commit();
}

uint64_t trace_stream_writer::records_written() const {
  std::lock_guard lock(mutex_);
  return records_;
}

void write_stage_stream(const std::string& path, const std::string& what,
                        const std::vector<std::string>& names,
                        const std::vector<trace_record>& records) {
  std::map<node_id, std::vector<trace_record>> by_node; // each node's in its order
  for (const trace_record& r : records)
    if (r.kind == trace_kind::engine_start || r.kind == trace_kind::engine_complete)
      by_node[r.node].push_back(r);
  trace_stream_writer w(path, false, what.c_str(), /*stages_only=*/true);
  for (const auto& [node, list] : by_node)
    for (size_t at = 0; at < list.size(); at += stream_recorder::chunk_records)
      w.write_chunk({list.begin() + static_cast<std::ptrdiff_t>(at),
                     list.begin() + static_cast<std::ptrdiff_t>(
                                      std::min(list.size(), at + stream_recorder::chunk_records))});
  w.finish(names);
}

stream_recorder::stream_recorder(std::shared_ptr<trace_stream_writer> w,
                                 std::shared_ptr<recorder> inner)
  : w_(std::move(w)), inner_(std::move(inner)) {}

void stream_recorder::push(trace_record r) {
  // Reserved on the first record: a node that never records (outside a
  // --trace-select) holds no buffer.
  if (buf_.capacity() == 0)
    buf_.reserve(chunk_records);
  buf_.push_back(r);
  if (buf_.size() == chunk_records) {
    w_->write_chunk(buf_);
    buf_.clear();
  }
}

void stream_recorder::record(trace_kind kind, SimTime t, node_id node, const service_tag& tag) {
  if (!w_->stages_only() || kind == trace_kind::engine_start ||
      kind == trace_kind::engine_complete)
    push({kind, t, node, seq_++, tag, no_node, SimTime{}});
  if (inner_)
    inner_->record(kind, t, node, tag);
}

void stream_recorder::message(const message_note& m, const service_tag& tag) {
  if (w_->hops())
    push(message_record(m, seq_++, tag));
  if (inner_ && inner_->wants_hops())
    inner_->message(m, tag);
}

void stream_recorder::service(SimTime t, node_id node, SimTime begin, SimTime end,
                              const service_tag& tag) {
  if (!w_->stages_only())
    push(service_record(t, node, seq_++, begin, end, tag));
  if (inner_)
    inner_->service(t, node, begin, end, tag);
}

bool stream_recorder::wants_hops() const {
  return w_->hops() || (inner_ && inner_->wants_hops());
}

void stream_recorder::events(uint64_t n, SimTime now) {
  if (inner_)
    inner_->events(n, now);
}

std::vector<char> stream_recorder::take_records() {
  if (!buf_.empty()) {
    w_->write_chunk(buf_);
    buf_.clear();
  }
  return inner_ ? inner_->take_records() : std::vector<char>{};
}

} // namespace kb
