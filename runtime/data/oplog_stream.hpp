#pragma once
// The op log as a file (seed ADR-0020 D5; DESIGN §5 "a Cap'n Proto stream"): a
// sequence of packed Cap'n Proto messages (messages/oplog.capnp), a header,
// batches of records, an end marker with the count. Writer and reader both
// hold one batch at a time, so memory does not grow with the log.

#include "messages/oplog.capnp.h"
#include "runtime/data/op_record.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kb {

/// The header text of an op log file.
inline constexpr const char* oplog_magic = "kernbench op log 1";

/// Appends op records to a file in batches. Thread-safe. close() writes the
/// last batch and the end marker; a writer destroyed without close() leaves
/// the file without its end marker (its last batch unwritten), and the reader
/// reports it as incomplete.
class oplog_writer {
public:
  /// Creates (truncates) `path`; throws std::runtime_error naming it if it
  /// cannot. `batch_records` records go in one message.
  explicit oplog_writer(std::string path, size_t batch_records = 4096);
  ~oplog_writer();
  oplog_writer(const oplog_writer&) = delete;
  oplog_writer& operator=(const oplog_writer&) = delete;

  void append(const op_record& r);
  /// Flushes and closes; further appends throw std::logic_error.
  void close();
  /// Records appended so far.
  uint64_t records() const;
  const std::string& path() const { return path_; }

private:
  void write_batch_locked();

  struct impl;
  std::string path_;
  size_t batch_records_;
  mutable std::mutex mutex_;
  std::vector<op_record> pending_;
  uint64_t records_ = 0;
  std::unique_ptr<impl> impl_; // null once closed
};

/// Reads op records back in file order. A file that is not an op log, is
/// truncated or damaged gives a std::runtime_error naming the file and the
/// record where reading stopped.
class oplog_reader {
public:
  explicit oplog_reader(std::string path);
  ~oplog_reader();
  oplog_reader(const oplog_reader&) = delete;
  oplog_reader& operator=(const oplog_reader&) = delete;

  /// The next record into `r`; false once the end marker is reached (its
  /// count checked against the records read).
  bool next(op_record& r);
  /// Records handed out so far.
  uint64_t records_read() const { return read_; }
  const std::string& path() const { return path_; }

private:
  bool load_batch();
  [[noreturn]] void fail(const std::string& why) const;

  struct impl;
  std::string path_;
  std::unique_ptr<impl> impl_;
  std::vector<op_record> batch_;
  size_t at_ = 0;
  uint64_t read_ = 0;
  bool ended_ = false;
};

/// A view as the op log's TensorView (messages/oplog.capnp; the PE
/// pipeline's data ops carry the same struct) and back; an unknown dtype is
/// std::invalid_argument.
void to_wire(const tensor_view& v, wire::TensorView::Builder w);
tensor_view from_wire(wire::TensorView::Reader w);

/// Records as one Cap'n Proto message (an OpBatch, flat words) and back: how
/// the ops of a split run's other processes reach rank 0. Damaged bytes are
/// std::invalid_argument.
std::vector<char> encode_ops(const std::vector<op_record>& ops);
std::vector<op_record> decode_ops(const std::vector<char>& bytes);

/// Writes `ops` to `path` (a writer, closed).
void write_oplog(const std::string& path, const std::vector<op_record>& ops,
                 size_t batch_records = 4096);
/// Calls `f` for every record of `path`, in order.
void for_each_op(const std::string& path, const std::function<void(const op_record&)>& f);
/// Every record of `path` (the whole log in memory).
std::vector<op_record> read_oplog(const std::string& path);

} // namespace kb
