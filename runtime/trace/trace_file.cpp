#include "runtime/trace/trace_file.hpp"

#include "runtime/trace/chrome_trace.hpp"
#include "runtime/trace/gzip_ostream.hpp"

#include "messages/trace.capnp.h"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/io/atomic_file.hpp"

#include <capnp/serialize.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <stdexcept>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace kb {


void write_trace_capnp(const std::string& path, const std::vector<std::string>& names,
                       const std::vector<trace_record>& records) {
  capnp::MallocMessageBuilder msg;
  auto root = msg.initRoot<wire::TraceFile>();
  auto ns = root.initNodes(static_cast<unsigned>(names.size()));
  for (unsigned i = 0; i < names.size(); ++i)
    ns.set(i, names[i]);
  auto rs = root.initRecords(static_cast<unsigned>(records.size()));
  for (unsigned i = 0; i < records.size(); ++i)
    to_wire(records[i], rs[i]);
  const kj::Array<capnp::word> words = capnp::messageToFlatArray(msg);
  const kj::ArrayPtr<const kj::byte> bytes = words.asBytes();
  write_file_atomically(path, "trace file",
                        std::string_view(reinterpret_cast<const char*>(bytes.begin()),
                                         bytes.size()));
}

namespace {

/// Reading visits each word of a well-formed trace once; a tighter limit
/// than that keeps a crafted file (e.g. a huge list of empty structs, which
/// takes no space on disk) from making us allocate without bound.
capnp::ReaderOptions trace_reader_options(uint64_t size_bytes) {
  capnp::ReaderOptions opts;
  opts.traversalLimitInWords = 2 * (size_bytes / sizeof(capnp::word)) + 1024;
  return opts;
}

void read_root(wire::TraceFile::Reader root, std::vector<std::string>& names,
               std::vector<trace_record>& records) {
  names.clear();
  for (auto n : root.getNodes())
    names.emplace_back(n.cStr());
  records.clear();
  for (auto w : root.getRecords())
    records.push_back(from_wire_record(w));
}

/// Why `name`, starting with `head`, is no trace file: Chrome/Perfetto JSON
/// (which `trace stats` used to report as "too many segments") said as
/// such, else Cap'n Proto's reason, attributed.
std::string not_a_trace(const std::string& name, std::string_view head, const kj::Exception& e) {
  const size_t at = head.find_first_not_of(" \t\r\n");
  if (at != std::string_view::npos && (head[at] == '{' || head[at] == '['))
    return fmt::format("'{}' is Chrome/Perfetto JSON, not a kernbench trace file: `kernbench "
                       "trace` reads the Cap'n Proto traces of `run --trace FILE` (a name not "
                       "ending in .json) and `run --trace-stream FILE`",
                       name);
  return fmt::format("'{}' is not a kernbench trace file (Cap'n Proto cannot read it: {})", name,
                     e.getDescription().cStr());
}

} // namespace

void read_trace_capnp(const std::string& path, std::vector<std::string>& names,
                      std::vector<trace_record>& records) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot read trace '{}': {}", path,
                                         std::strerror(errno)));
  struct stat st {};
  const uint64_t size = ::fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  try {
    capnp::StreamFdMessageReader reader(fd, trace_reader_options(size));
    read_root(reader.getRoot<wire::TraceFile>(), names, records);
  } catch (const kj::Exception& e) {
    char head[64] = {};
    const ssize_t n = ::pread(fd, head, sizeof head, 0);
    ::close(fd);
    throw std::runtime_error(
      not_a_trace(path, std::string_view(head, n > 0 ? static_cast<size_t>(n) : 0), e));
  }
  // The message read exactly: bytes after it are another trace (`cat a b`)
  // or damage, never to be skipped in silence (issue 35).
  const off_t end = ::lseek(fd, 0, SEEK_CUR);
  ::close(fd);
  if (end >= 0 && static_cast<uint64_t>(end) < size)
    throw std::runtime_error(fmt::format(
      "'{}' is not a kernbench trace file: {} more bytes after the trace's {} (two traces "
      "joined into one file?)",
      path, size - static_cast<uint64_t>(end), end));
}

void read_trace_bytes(std::string_view bytes, const std::string& name,
                      std::vector<std::string>& names, std::vector<trace_record>& records) {
  if (bytes.size() % sizeof(capnp::word) != 0)
    throw std::runtime_error(fmt::format(
      "'{}' is not a kernbench trace file: its size is not a whole number of words", name));
  // Word-aligned storage for the reader.
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
  if (!bytes.empty())
    std::memcpy(words.begin(), bytes.data(), bytes.size());
  try {
    capnp::FlatArrayMessageReader reader(words, trace_reader_options(bytes.size()));
    read_root(reader.getRoot<wire::TraceFile>(), names, records);
  } catch (const kj::Exception& e) {
    throw std::runtime_error(not_a_trace(name, bytes.substr(0, 64), e));
  }
}

void write_trace_json(std::ostream& out, const std::vector<std::string>& names,
                      const std::vector<trace_record>& records,
                      chrome_trace_writer::kind_namer kinds, chrome_trace_cut cut) {
  std::set<node_id> nodes;
  for (const auto& r : records)
    nodes.insert(r.node);
  chrome_trace_writer w(out, names, nodes, kinds, cut);
  for (const auto& r : records)
    w.add(r);
  w.finish();
}

void write_trace(const std::string& path, const std::vector<std::string>& names,
                 const std::vector<trace_record>& records,
                 chrome_trace_writer::kind_namer kinds, chrome_trace_cut cut) {
  if (is_json_trace_name(path)) {
    write_text_file(path, "trace file",
                    [&](std::ostream& out) { write_trace_json(out, names, records, kinds, cut); });
    return;
  }
  write_trace_capnp(path, names, records);
}

bool is_json_trace_name(std::string_view path) {
  return path.ends_with(".json") || path.ends_with(".json.gz");
}

void write_text_file(const std::string& path, const std::string& what,
                     const std::function<void(std::ostream&)>& write) {
  atomic_file out(path, what);
  if (std::string_view(path).ends_with(".gz")) {
    gzip_ostream gz(out.stream());
    write(gz.stream());
    gz.finish();
  } else {
    write(out.stream());
  }
  out.commit();
}

} // namespace kb
