#include "runtime/kernel/op_log.hpp"

#include "runtime/data/oplog_stream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <queue>
#include <stdexcept>

namespace kb {

op_log::op_log(std::string path, size_t buffer_records)
  : path_(std::move(path)), buffer_records_(std::max<size_t>(1, buffer_records)) {}

op_log::~op_log() {
  std::error_code ec;
  for (const auto& r : runs_)
    std::filesystem::remove(r, ec);
}

void op_log::append(op_record r) {
  std::lock_guard lock(mutex_);
  if (finished_)
    throw std::logic_error("op log: a record after the log was finished");
  buffer_.push_back(std::move(r));
  if (buffer_.size() >= buffer_records_)
    spill_locked();
}

void op_log::spill_locked() {
  if (buffer_.empty())
    return;
  std::sort(buffer_.begin(), buffer_.end(),
            [](const op_record& a, const op_record& b) { return op_key(a) < op_key(b); });
  const std::string run = fmt::format("{}.run{}", path_, runs_.size());
  write_oplog(run, buffer_);
  runs_.push_back(run);
  buffer_.clear();
}

uint64_t op_log::finish() {
  std::lock_guard lock(mutex_);
  if (finished_)
    throw std::logic_error("op log: finished twice");
  finished_ = true;
  oplog_writer out(path_);
  if (runs_.empty()) { // it all fit: no run files
    std::sort(buffer_.begin(), buffer_.end(),
              [](const op_record& a, const op_record& b) { return op_key(a) < op_key(b); });
    for (const auto& r : buffer_)
      out.append(r);
    buffer_.clear();
  } else {
    spill_locked();
    // k-way merge of the sorted runs.
    std::vector<std::unique_ptr<oplog_reader>> readers;
    std::vector<op_record> heads(runs_.size());
    auto later = [&](size_t a, size_t b) { return op_key(heads[b]) < op_key(heads[a]); };
    std::priority_queue<size_t, std::vector<size_t>, decltype(later)> next(later);
    for (size_t i = 0; i < runs_.size(); ++i) {
      readers.push_back(std::make_unique<oplog_reader>(runs_[i]));
      if (readers[i]->next(heads[i]))
        next.push(i);
    }
    while (!next.empty()) {
      const size_t i = next.top();
      next.pop();
      out.append(heads[i]);
      if (readers[i]->next(heads[i]))
        next.push(i);
    }
    readers.clear();
    std::error_code ec;
    for (const auto& r : runs_)
      std::filesystem::remove(r, ec);
    runs_.clear();
  }
  const uint64_t n = out.records();
  out.close();
  return n;
}

} // namespace kb
