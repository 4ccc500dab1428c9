#include "runtime/data/oplog_stream.hpp"

#include "messages/oplog.capnp.h"

#include <capnp/message.h>
#include <capnp/serialize-packed.h>
#include <capnp/serialize.h>
#include <fmt/format.h>
#include <kj/io.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>
#include <unordered_map>

namespace kb {

void to_wire(const tensor_view& v, wire::TensorView::Builder w) {
  w.setAddress(v.address);
  w.setRows(v.rows);
  w.setCols(v.cols);
  w.setRowStride(v.row_stride);
  w.setDtype(static_cast<wire::DType>(v.type));
}

tensor_view from_wire(wire::TensorView::Reader w) {
  const auto t = static_cast<unsigned>(w.getDtype());
  if (t > static_cast<unsigned>(dtype::i32))
    throw std::invalid_argument(fmt::format("unknown dtype {}", t));
  return {w.getAddress(), w.getRows(), w.getCols(), w.getRowStride(), static_cast<dtype>(t)};
}

namespace {

// -- record <-> wire -------------------------------------------------------------

struct name_table {
  std::unordered_map<std::string, uint32_t> index;
  std::vector<const std::string*> names;
  uint32_t of(const std::string& s) {
    auto [it, fresh] = index.emplace(s, static_cast<uint32_t>(names.size()));
    if (fresh)
      names.push_back(&it->first);
    return it->second;
  }
};

void to_wire(const op_record& r, wire::OpRecord::Builder w, name_table& names) {
  w.setId(r.id);
  w.setTStart(r.t_start_ps);
  w.setTEnd(r.t_end_ps);
  w.setComponent(names.of(r.component));
  w.setKind(static_cast<wire::OpKind>(r.kind));
  w.setOpName(names.of(r.op_name));
  auto ins = w.initInputs(static_cast<unsigned>(r.inputs.size()));
  for (unsigned i = 0; i < r.inputs.size(); ++i)
    to_wire(r.inputs[i], ins[i]);
  to_wire(r.out, w.initOut());
  w.setAccumulate(r.accumulate);
  w.setTransposeA(r.transpose_a);
  w.setTransposeB(r.transpose_b);
  w.setFn(static_cast<wire::MathFn>(r.fn));
  w.setScalar(r.scalar);
  w.setAxis(r.axis);
  auto deps = w.initDeps(static_cast<unsigned>(r.deps.size()));
  for (unsigned i = 0; i < r.deps.size(); ++i)
    deps.set(i, r.deps[i]);
}

/// Throws a plain message; the reader adds the file and the position.
[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

op_record from_wire(wire::OpRecord::Reader w, const std::vector<std::string>& names) {
  op_record r;
  r.id = w.getId();
  r.t_start_ps = w.getTStart();
  r.t_end_ps = w.getTEnd();
  const uint32_t comp = w.getComponent(), name = w.getOpName();
  if (comp >= names.size() || name >= names.size())
    bad(fmt::format("a name index past the batch's {} names", names.size()));
  r.component = names[comp];
  r.op_name = names[name];
  const auto kind = static_cast<unsigned>(w.getKind());
  if (kind > static_cast<unsigned>(op_kind::math))
    bad(fmt::format("unknown op kind {}", kind));
  r.kind = static_cast<op_kind>(kind);
  for (auto v : w.getInputs())
    r.inputs.push_back(kb::from_wire(v));
  r.out = kb::from_wire(w.getOut());
  r.accumulate = w.getAccumulate();
  r.transpose_a = w.getTransposeA();
  r.transpose_b = w.getTransposeB();
  const auto fn = static_cast<unsigned>(w.getFn());
  if (fn >= math_fn_count)
    bad(fmt::format("unknown math fn {}", fn));
  r.fn = static_cast<math_fn>(fn);
  r.scalar = w.getScalar();
  r.axis = w.getAxis();
  for (uint64_t d : w.getDeps())
    r.deps.push_back(d);
  return r;
}

void fill_batch(const std::vector<op_record>& ops, wire::OpBatch::Builder batch) {
  auto list = batch.initRecords(static_cast<unsigned>(ops.size()));
  name_table names;
  for (unsigned i = 0; i < ops.size(); ++i)
    to_wire(ops[i], list[i], names);
  auto ns = batch.initNames(static_cast<unsigned>(names.names.size()));
  for (unsigned i = 0; i < names.names.size(); ++i)
    ns.set(i, *names.names[i]);
}

void read_batch(wire::OpBatch::Reader b, std::vector<op_record>& out) {
  std::vector<std::string> names;
  for (auto n : b.getNames())
    names.emplace_back(n.cStr());
  auto recs = b.getRecords();
  out.reserve(out.size() + recs.size());
  for (auto w : recs)
    out.push_back(from_wire(w, names));
}

capnp::ReaderOptions reader_options() {
  capnp::ReaderOptions o;
  o.traversalLimitInWords = uint64_t{1} << 32; // one batch; far above 4096 records
  return o;
}

} // namespace

// -- writer --------------------------------------------------------------------------

// `raw` owns the descriptor and closes it after `out` has flushed.
struct oplog_writer::impl {
  kj::FdOutputStream raw;
  kj::BufferedOutputStreamWrapper out;
  explicit impl(int f) : raw(kj::AutoCloseFd(f)), out(raw) {}
  void write(capnp::MessageBuilder& m) { capnp::writePackedMessage(out, m); }
};

oplog_writer::oplog_writer(std::string path, size_t batch_records)
  : path_(std::move(path)), batch_records_(batch_records == 0 ? 1 : batch_records) {
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error(
      fmt::format("{}: cannot create the op log: {}", path_, std::strerror(errno)));
  impl_ = std::make_unique<impl>(fd);
  pending_.reserve(batch_records_);
  try {
    capnp::MallocMessageBuilder m;
    m.initRoot<wire::OpLogPart>().setHeader(oplog_magic);
    impl_->write(m);
  } catch (const kj::Exception& e) {
    throw std::runtime_error(fmt::format("{}: writing the op log failed: {}", path_,
                                         e.getDescription().cStr()));
  }
}

oplog_writer::~oplog_writer() {
  // Not closed: the buffered bytes go out without the end marker. kj stream
  // destructors may throw (a failed flush); a destructor must not.
  try {
    delete impl_.release();
  } catch (...) {
  }
}

void oplog_writer::write_batch_locked() {
  if (pending_.empty())
    return;
  try {
    capnp::MallocMessageBuilder m;
    fill_batch(pending_, m.initRoot<wire::OpLogPart>().initBatch());
    impl_->write(m);
  } catch (const kj::Exception& e) {
    throw std::runtime_error(fmt::format("{}: writing the op log failed: {}", path_,
                                         e.getDescription().cStr()));
  }
  pending_.clear();
}

void oplog_writer::append(const op_record& r) {
  std::lock_guard lock(mutex_);
  if (!impl_)
    throw std::logic_error(fmt::format("{}: append after close", path_));
  pending_.push_back(r);
  ++records_;
  if (pending_.size() >= batch_records_)
    write_batch_locked();
}

void oplog_writer::close() {
  std::lock_guard lock(mutex_);
  if (!impl_)
    return;
  write_batch_locked();
  try {
    capnp::MallocMessageBuilder m;
    m.initRoot<wire::OpLogPart>().setEnd(records_);
    impl_->write(m);
    impl_->out.flush();
  } catch (const kj::Exception& e) {
    throw std::runtime_error(fmt::format("{}: writing the op log failed: {}", path_,
                                         e.getDescription().cStr()));
  }
  impl_.reset(); // closes the file
}

uint64_t oplog_writer::records() const {
  std::lock_guard lock(mutex_);
  return records_;
}

// -- reader --------------------------------------------------------------------------

struct oplog_reader::impl {
  kj::FdInputStream raw; // owns the descriptor
  kj::BufferedInputStreamWrapper in;
  explicit impl(int f) : raw(kj::AutoCloseFd(f)), in(raw) {}
  bool at_eof() { return in.tryGetReadBuffer().size() == 0; }
};

oplog_reader::oplog_reader(std::string path) : path_(std::move(path)) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error(
      fmt::format("{}: cannot read the op log: {}", path_, std::strerror(errno)));
  impl_ = std::make_unique<impl>(fd);
  bool ok = false;
  try {
    if (!impl_->at_eof()) {
      capnp::PackedMessageReader m(impl_->in, reader_options());
      auto root = m.getRoot<wire::OpLogPart>();
      ok = root.isHeader() && root.getHeader() == oplog_magic;
    }
  } catch (const kj::Exception&) {
  }
  if (!ok)
    throw std::runtime_error(fmt::format(
      "{}: not a kernbench op log (it does not start with the \"{}\" header)", path_, oplog_magic));
}

oplog_reader::~oplog_reader() = default;

void oplog_reader::fail(const std::string& why) const {
  throw std::runtime_error(
    fmt::format("{}: damaged or incomplete op log after {} records: {}", path_, read_, why));
}

bool oplog_reader::load_batch() {
  batch_.clear();
  at_ = 0;
  while (batch_.empty()) {
    if (impl_->at_eof())
      fail("the file ends without its end marker (truncated, or the writer was not closed)");
    try {
      capnp::PackedMessageReader m(impl_->in, reader_options());
      auto root = m.getRoot<wire::OpLogPart>();
      switch (root.which()) {
      case wire::OpLogPart::HEADER:
        fail("a second header inside the log");
      case wire::OpLogPart::END:
        if (root.getEnd() != read_)
          fail(fmt::format("the end marker counts {} records", root.getEnd()));
        if (!impl_->at_eof())
          fail("bytes after the end marker");
        ended_ = true;
        return false;
      case wire::OpLogPart::BATCH:
        read_batch(root.getBatch(), batch_);
        break;
      default:
        fail("an unknown part");
      }
    } catch (const kj::Exception& e) {
      fail(e.getDescription().cStr());
    } catch (const std::invalid_argument& e) {
      fail(fmt::format("record {}: {}", read_ + batch_.size(), e.what()));
    }
  }
  return true;
}

bool oplog_reader::next(op_record& r) {
  if (ended_)
    return false;
  if (at_ == batch_.size() && !load_batch())
    return false;
  r = std::move(batch_[at_++]);
  ++read_;
  return true;
}

// -- records as bytes (a split run's ops travel to rank 0) ----------------------------

std::vector<char> encode_ops(const std::vector<op_record>& ops) {
  capnp::MallocMessageBuilder m;
  fill_batch(ops, m.initRoot<wire::OpBatch>());
  const auto words = capnp::messageToFlatArray(m);
  const auto bytes = words.asChars();
  return {bytes.begin(), bytes.end()};
}

std::vector<op_record> decode_ops(const std::vector<char>& bytes) {
  if (bytes.size() % sizeof(capnp::word) != 0)
    throw std::invalid_argument(
      fmt::format("{} bytes of op records: not a whole number of words", bytes.size()));
  auto words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  std::vector<op_record> out;
  try {
    capnp::FlatArrayMessageReader m(words, reader_options());
    read_batch(m.getRoot<wire::OpBatch>(), out);
  } catch (const kj::Exception& e) {
    throw std::invalid_argument(fmt::format("damaged op records: {}", e.getDescription().cStr()));
  }
  return out;
}

// -- whole-file helpers ------------------------------------------------------------

void write_oplog(const std::string& path, const std::vector<op_record>& ops,
                 size_t batch_records) {
  oplog_writer w(path, batch_records);
  for (const auto& r : ops)
    w.append(r);
  w.close();
}

void for_each_op(const std::string& path, const std::function<void(const op_record&)>& f) {
  oplog_reader in(path);
  op_record r;
  while (in.next(r))
    f(r);
}

std::vector<op_record> read_oplog(const std::string& path) {
  std::vector<op_record> ops;
  for_each_op(path, [&](const op_record& r) { ops.push_back(r); });
  return ops;
}

} // namespace kb
