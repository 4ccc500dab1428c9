#include "runtime/trace/trace_stream_reader.hpp"

#include "messages/trace.capnp.h"
#include "runtime/trace/trace_file.hpp"
#include "runtime/trace/trace_stream.hpp"

#include <capnp/serialize.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <queue>
#include <stdexcept>
#include <string_view>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace kb {

namespace {

/// One message of the stream at `offset`: its words and the next offset.
struct part {
  kj::Array<capnp::word> words;
  uint64_t next = 0;
};

bool read_exact(int fd, void* buf, size_t n, uint64_t offset) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    p += got;
    n -= static_cast<size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

/// Reads the flat-array message at `offset` (segment table, then segments);
/// nullopt-like empty words on a malformed or truncated message.
part read_part(int fd, uint64_t offset, uint64_t size) {
  part p;
  uint32_t first[2];
  if (offset + 8 > size || !read_exact(fd, first, 8, offset))
    return p;
  const uint64_t segments = uint64_t{first[0]} + 1;
  if (segments > 512)
    return p;
  const uint64_t table_words = (4 + 4 * segments + 7) / 8;
  std::vector<uint32_t> sizes(segments);
  sizes[0] = first[1];
  if (segments > 1 && !read_exact(fd, sizes.data() + 1, 4 * (segments - 1), offset + 8))
    return p;
  uint64_t words = table_words;
  for (uint32_t s : sizes)
    words += s;
  if (offset + words * 8 > size)
    return p;
  p.words = kj::heapArray<capnp::word>(words);
  if (!read_exact(fd, p.words.begin(), words * 8, offset))
    return part{};
  p.next = offset + words * 8;
  return p;
}

capnp::ReaderOptions options_for(size_t words) {
  capnp::ReaderOptions o;
  o.traversalLimitInWords = 2 * words + 1024;
  return o;
}

} // namespace

void trace_reader::fail(const std::string& why) const {
  throw std::runtime_error(fmt::format("'{}' is not a complete kernbench trace: {}", path_, why));
}

trace_reader::trace_reader(std::string path) : path_(std::move(path)) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error(
      fmt::format("cannot read trace '{}': {}", path_, std::strerror(errno)));
  struct stat st {};
  size_ = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  bool stream = false;
  part first = read_part(fd, 0, size_);
  if (first.words.size() > 0) {
    try {
      capnp::FlatArrayMessageReader m(first.words, options_for(first.words.size()));
      auto root = m.getRoot<wire::TraceStreamPart>();
      stream = root.isHeader() && root.getHeader() == trace_stream_magic;
      // An earlier form of the stream (its hops lack what a receipt is
      // drawn from, docs/adr/0040): refused by name.
      if (root.isHeader() && !stream &&
          std::string_view(root.getHeader().cStr()).starts_with("kernbench trace stream ")) {
        ::close(fd);
        throw std::runtime_error(fmt::format(
          "cannot read trace '{}': it is a '{}', written by an earlier kernbench; this one "
          "reads '{}' (run it again, or convert it with the kernbench that wrote it)",
          path_, root.getHeader().cStr(), trace_stream_magic));
      }
    } catch (const kj::Exception&) {
    }
  }
  if (!stream) { // the TraceFile form: held in memory
    ::close(fd);
    read_trace_capnp(path_, names_, in_memory_);
    for (const auto& r : in_memory_)
      nodes_.insert(r.node);
    count_ = in_memory_.size();
    return;
  }
  fd_ = fd;
  try {
    index_stream(first.next);
  } catch (...) {
    // A constructor that throws runs no destructor: the file is closed
    // here (fuzz_trace_stream ran out of descriptors).
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

void trace_reader::index_stream(uint64_t from) {
  bool named = false;
  try {
    for (uint64_t off = from; off < size_;) {
      part p = read_part(fd_, off, size_);
      if (p.words.size() == 0)
        fail(fmt::format("a truncated or malformed part at byte {}", off));
      capnp::FlatArrayMessageReader m(p.words, options_for(p.words.size()));
      auto root = m.getRoot<wire::TraceStreamPart>();
      // The names end a stream: anything after them, or a second header,
      // is another trace run into this one (`cat a b`), whose records
      // would all be counted twice (issue 35).
      if (named || root.isHeader())
        fail(fmt::format("{} at byte {}, after {}: two traces joined into one file?",
                         root.isHeader() ? "a second header" : "more parts", off,
                         named ? "the node names that end a stream" : "the first header"));
      if (root.isChunk()) {
        auto rs = root.getChunk().getRecords();
        if (rs.size() > 0) {
          const node_id n = rs[0].getNode();
          chunks_.push_back(off);
          by_node_[n].push_back(off);
          nodes_.insert(n);
          count_ += rs.size();
        }
      } else if (root.isNodes()) {
        for (auto n : root.getNodes())
          names_.emplace_back(n.cStr());
        named = true;
      }
      off = p.next;
    }
  } catch (const kj::Exception& e) {
    fail(e.getDescription().cStr());
  }
  if (!named)
    fail("no node names at the end (the run did not finish?)");
}

trace_reader::~trace_reader() {
  if (fd_ >= 0)
    ::close(fd_);
}

std::vector<trace_record> trace_reader::chunk_at(uint64_t offset) const {
  part p = read_part(fd_, offset, size_);
  std::vector<trace_record> out;
  try {
    capnp::FlatArrayMessageReader m(p.words, options_for(p.words.size()));
    for (auto w : m.getRoot<wire::TraceStreamPart>().getChunk().getRecords())
      out.push_back(from_wire_record(w));
  } catch (const kj::Exception& e) {
    fail(e.getDescription().cStr());
  }
  return out;
}

void trace_reader::for_each(const std::function<void(const trace_record&)>& f) const {
  if (!streamed()) {
    for (const auto& r : in_memory_)
      f(r);
    return;
  }
  for (uint64_t off : chunks_)
    for (const auto& r : chunk_at(off))
      f(r);
}

void trace_reader::for_each_merged(const std::function<void(const trace_record&)>& f) const {
  if (!streamed()) {
    for (const auto& r : in_memory_)
      f(r);
    return;
  }
  struct cursor {
    const std::vector<uint64_t>* chunks;
    size_t next_chunk = 0;
    std::vector<trace_record> buf;
    size_t pos = 0;
  };
  std::vector<cursor> cs;
  for (const auto& [node, offs] : by_node_)
    cs.push_back({&offs, 0, {}, 0});
  auto key = [](const trace_record& r) { return std::make_tuple(r.t, r.node, r.seq); };
  auto refill = [&](cursor& c) {
    while (c.pos == c.buf.size() && c.next_chunk < c.chunks->size()) {
      c.buf = chunk_at((*c.chunks)[c.next_chunk++]);
      c.pos = 0;
    }
    return c.pos < c.buf.size();
  };
  auto later = [&](size_t a, size_t b) {
    return key(cs[a].buf[cs[a].pos]) > key(cs[b].buf[cs[b].pos]);
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  for (size_t i = 0; i < cs.size(); ++i)
    if (refill(cs[i]))
      heap.push(i);
  while (!heap.empty()) {
    const size_t i = heap.top();
    heap.pop();
    cursor& c = cs[i];
    const trace_record r = c.buf[c.pos++];
    f(r);
    if (refill(c)) {
      if (key(c.buf[c.pos]) < key(r))
        fail(fmt::format("the records of node {} go back in time", r.node));
      heap.push(i);
    }
  }
}

} // namespace kb
