#pragma once
// Traces written while the run goes, in constant memory: each node's
// stream_recorder keeps at most `chunk_records` records and hands full
// chunks to the one trace_stream_writer, which appends them to the file
// (messages/trace.capnp, TraceStreamPart) under a lock. The file is an
// atomic_file: complete after finish(), absent if the run fails.

#include "runtime/engine/recorder.hpp"
#include "runtime/io/atomic_file.hpp"
#include "runtime/trace/trace_recorder.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kb {

/// First part of every trace stream.
inline constexpr const char* trace_stream_magic = "kernbench trace stream 2";

class trace_stream_writer {
public:
  /// Opens `path` (through an atomic_file; `what` names it in errors) and
  /// writes the header part. `hops`: the recorders also record every
  /// message hop. `stages_only`: they record only the stages' bounds
  /// (engine_start, engine_complete: `run --records`).
  trace_stream_writer(const std::string& path, bool hops,
                      const char* what = "trace stream file", bool stages_only = false);
  /// Appends one chunk (records of one node, in its order). Thread-safe.
  void write_chunk(const std::vector<trace_record>& records);
  /// Writes the node names and commits the file; throws output_error.
  void finish(const std::vector<std::string>& names);
  bool hops() const { return hops_; }
  bool stages_only() const { return stages_only_; }
  uint64_t records_written() const;

private:
  void write_part_locked(const kj::ArrayPtr<const kj::byte>& bytes);

  bool hops_;
  bool stages_only_;
  mutable std::mutex mutex_;
  atomic_file file_;
  uint64_t records_ = 0;
};

/// Writes `records` (merged in key order: a split run's, gathered at rank 0)
/// as a stages-only stream at `path`, the same as `run --records` streams
/// in one process: each node's engine_start/engine_complete in a chunk of
/// its own, then the names. Throws output_error.
void write_stage_stream(const std::string& path, const std::string& what,
                        const std::vector<std::string>& names,
                        const std::vector<trace_record>& records);

/// A node's recorder that streams: records go to the writer in chunks of
/// `chunk_records`; `inner` (may be null) also gets every call (e.g. the
/// in-memory trace_recorder when --json needs the stage records).
class stream_recorder final : public recorder {
public:
  static constexpr size_t chunk_records = 64;
  stream_recorder(std::shared_ptr<trace_stream_writer> w, std::shared_ptr<recorder> inner);
  void record(trace_kind kind, SimTime t, node_id node, const service_tag& tag) override;
  void message(const message_note& m, const service_tag& tag) override;
  void service(SimTime t, node_id node, SimTime begin, SimTime end,
               const service_tag& tag) override;
  bool wants_hops() const override;
  void events(uint64_t n, SimTime now) override;
  std::vector<char> take_records() override;

private:
  void push(trace_record r);

  std::shared_ptr<trace_stream_writer> w_;
  std::shared_ptr<recorder> inner_;
  std::vector<trace_record> buf_;
  uint32_t seq_ = 0;
};

} // namespace kb
