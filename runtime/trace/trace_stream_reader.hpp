#pragma once
// Reading a trace file of either form: a TraceFile (`run --trace X`, held
// in memory) or a trace stream (`run --trace-stream X`, read in bounded
// memory: one pass indexes the chunks of each node, a second merges the
// nodes' chunks into key order holding one chunk per node).

#include "runtime/trace/trace_recorder.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kb {

class trace_reader {
public:
  /// Opens and indexes `path`. Throws std::runtime_error naming it if it is
  /// neither form, is truncated, or a node's records go back in time.
  explicit trace_reader(std::string path);
  trace_reader(const trace_reader&) = delete;
  trace_reader& operator=(const trace_reader&) = delete;
  ~trace_reader();

  bool streamed() const { return fd_ >= 0; }
  const std::vector<std::string>& names() const { return names_; }
  /// Nodes with at least one record.
  const std::set<node_id>& nodes() const { return nodes_; }
  uint64_t record_count() const { return count_; }

  /// Every record in key order (time, node, seq).
  void for_each_merged(const std::function<void(const trace_record&)>& f) const;
  /// Every record, each node's in its own order, nodes interleaved as written.
  void for_each(const std::function<void(const trace_record&)>& f) const;

private:
  /// Indexes the stream's parts from byte `from` (after the header).
  void index_stream(uint64_t from);
  std::vector<trace_record> chunk_at(uint64_t offset) const;
  [[noreturn]] void fail(const std::string& why) const;

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::vector<std::string> names_;
  std::set<node_id> nodes_;
  uint64_t count_ = 0;
  std::vector<uint64_t> chunks_;                      ///< offsets, file order
  std::map<node_id, std::vector<uint64_t>> by_node_;  ///< offsets per node
  std::vector<trace_record> in_memory_;               ///< a TraceFile's records
};

} // namespace kb
