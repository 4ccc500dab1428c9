#pragma once
// The op log of a run (seed ADR-0020 D5), written while the run goes in constant
// memory and in an order no thread count changes: records arrive from every
// node's thread, are held in a buffer, and each full buffer is sorted by
// op_key and written to a run file; `finish` merges the runs into one op log
// file in op_key order. Off by default: with no sink, the hook costs a null
// check.

#include "runtime/pipeline/op_sink.hpp"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace kb {

class op_log final : public op_sink {
public:
  /// Writes to `path` (run files go next to it, `path`.run0 ...); at most
  /// `buffer_records` records are held at once.
  explicit op_log(std::string path, size_t buffer_records = size_t{1} << 18);
  ~op_log() override;

  void append(op_record r) override;
  /// Merges everything into `path`; returns the record count.
  uint64_t finish();
  const std::string& path() const { return path_; }

private:
  void spill_locked();

  std::string path_;
  size_t buffer_records_;
  std::mutex mutex_;
  std::vector<op_record> buffer_;
  std::vector<std::string> runs_;
  bool finished_ = false;
};

} // namespace kb
