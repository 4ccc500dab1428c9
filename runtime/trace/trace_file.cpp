#include "runtime/trace/trace_file.hpp"

#include "messages/trace.capnp.h"
#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/report/atomic_file.hpp"

#include <capnp/serialize.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace kb {

namespace {

std::string ps_to_us(SimTime t) {
  return fmt::format("{}.{:06d}", t.ps() / 1000000, t.ps() % 1000000);
}

} // namespace

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
    ::close(fd);
    throw std::runtime_error(fmt::format("'{}' is not a kernbench trace file: {}",
                                         path, e.getDescription().cStr()));
  }
  ::close(fd);
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
    throw std::runtime_error(fmt::format("'{}' is not a kernbench trace file: {}", name,
                                         e.getDescription().cStr()));
  }
}

void write_trace_json(std::ostream& out, const std::vector<std::string>& names,
                      const std::vector<trace_record>& records) {
  // pid: the node's parent (PE or cube); tid: node id * 8 + lane.
  std::map<std::string, int> pids;
  auto parent = [&](node_id n) {
    const std::string& name = n < names.size() ? names[n] : "?";
    return name.substr(0, name.rfind('.'));
  };
  for (const auto& r : records)
    pids.emplace(parent(r.node), 0);
  int next = 1;
  for (auto& [name, pid] : pids)
    pid = next++;
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first)
      out << ",\n";
    first = false;
  };
  for (const auto& [name, pid] : pids) {
    sep();
    fmt::print(out, R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"{}"}}}})",
               pid, name);
  }
  std::map<std::pair<int, uint64_t>, bool> threads;
  for (const auto& r : records) {
    const int pid = pids[parent(r.node)];
    const uint64_t tid = uint64_t{r.node} * 8 + r.tag.lane;
    if (!threads[{pid, tid}]) {
      threads[{pid, tid}] = true;
      sep();
      const std::string& name = r.node < names.size() ? names[r.node] : "?";
      fmt::print(out,
                 R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{}/{}"}}}})",
                 pid, tid, name.substr(name.rfind('.') + 1), r.tag.lane);
    }
    sep();
    const std::string ts = ps_to_us(r.t);
    const auto what = static_cast<stage_type>(r.tag.what);
    switch (r.kind) {
      case trace_kind::engine_start:
        fmt::print(out,
                   R"({{"ph":"B","pid":{},"tid":{},"ts":{},"name":"{} c{} t{}","args":{{"command":{},"tile":{},"bytes":{}}}}})",
                   pid, tid, ts, to_string(what), r.tag.context, r.tag.item,
                   r.tag.context, r.tag.item, r.tag.bytes);
        break;
      case trace_kind::engine_complete:
        fmt::print(out, R"({{"ph":"E","pid":{},"tid":{},"ts":{}}})", pid, tid, ts);
        break;
      case trace_kind::message_hop:
        fmt::print(out,
                   R"({{"ph":"i","s":"t","pid":{},"tid":{},"ts":{},"name":"hop k{} -> {}","args":{{"arrival_us":{},"command":{},"tile":{},"bytes":{}}}}})",
                   pid, tid, ts, r.tag.what, r.peer < names.size() ? names[r.peer] : "?",
                   ps_to_us(r.arrival), r.tag.context, r.tag.item, r.tag.bytes);
        break;
      default:
        fmt::print(out,
                   R"({{"ph":"i","s":"t","pid":{},"tid":{},"ts":{},"name":"{}","args":{{"command":{},"item":{}}}}})",
                   pid, tid, ts, to_string(r.kind), r.tag.context, r.tag.item);
    }
  }
  out << "\n]}\n";
}

void write_trace(const std::string& path, const std::vector<std::string>& names,
                 const std::vector<trace_record>& records) {
  if (path.size() > 5 && path.substr(path.size() - 5) == ".json") {
    atomic_file out(path, "trace file");
    write_trace_json(out.stream(), names, records);
    out.commit();
    return;
  }
  write_trace_capnp(path, names, records);
}

} // namespace kb
