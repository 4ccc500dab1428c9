#include "runtime/engine/control_wire.hpp"

#include "messages/sim.capnp.h"
#include "runtime/engine/protocol.hpp"

#include <capnp/serialize.h>

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

namespace kb {

kj::Array<capnp::word> aligned_words(const std::vector<char>& bytes, const char* what) {
  if (bytes.empty())
    throw std::runtime_error(std::string("malformed ") + what + ": empty");
  if (bytes.size() % sizeof(capnp::word) != 0)
    throw std::runtime_error(std::string("malformed ") + what +
                             ": size is not a whole number of Cap'n Proto words");
  // Copy into word-aligned storage before reading.
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), bytes.data(), bytes.size());
  return words;
}

std::vector<char> flat_bytes(capnp::MessageBuilder& msg) {
  const kj::Array<capnp::word> words = capnp::messageToFlatArray(msg);
  const auto bytes = words.asChars(); // of `words`, which outlives it
  return std::vector<char>(bytes.begin(), bytes.end());
}

capnp::ReaderOptions bounded_reader(size_t words) {
  capnp::ReaderOptions opts;
  // Proportional to the input: a crafted message cannot make the reader (or
  // a reserve bounded by the list it may traverse) ask for more memory than
  // a few times its own size.
  opts.traversalLimitInWords = uint64_t{words} * 8 + 1024;
  return opts;
}

namespace {

/// Distinct values in the order first seen, each with its index: the
/// tables a run result's figures refer to.
template <class T>
struct table {
  std::vector<T> items;
  std::map<T, uint32_t> index;
  uint32_t index_of(const T& x) {
    auto [it, added] = index.try_emplace(x, static_cast<uint32_t>(items.size()));
    if (added)
      items.push_back(x);
    return it->second;
  }
};

capnp::Text::Reader as_text(std::string_view s) { return capnp::Text::Reader(s.data(), s.size()); }
std::string_view as_view(capnp::Text::Reader t) { return std::string_view(t.cStr(), t.size()); }

} // namespace

std::vector<char> encode_snapshot(const hub_snapshot& s) {
  capnp::MallocMessageBuilder msg;
  auto w = msg.initRoot<wire::HubSnapshot>();
  w.setShard(s.shard);
  w.setRound(s.round);
  w.setStuck(s.stuck);
  w.setLocalMin(s.local_min.ps());
  w.setSent(s.sent);
  w.setRecv(s.recv);
  w.setWindows(s.windows);
  return flat_bytes(msg);
}

hub_snapshot decode_snapshot(const std::vector<char>& bytes) {
  const auto words = aligned_words(bytes, "hub snapshot");
  capnp::FlatArrayMessageReader reader(words, bounded_reader(words.size()));
  const auto w = reader.getRoot<wire::HubSnapshot>();
  hub_snapshot s;
  s.shard = w.getShard();
  s.round = w.getRound();
  s.stuck = w.getStuck();
  s.local_min = SimTime{w.getLocalMin()};
  s.sent = w.getSent();
  s.recv = w.getRecv();
  s.windows = w.getWindows();
  return s;
}

std::vector<char> encode_result(const run_result& r) {
  capnp::MallocMessageBuilder msg;
  auto w = msg.initRoot<wire::RunResult>();
  auto h = w.initHub();
  h.setWindows(r.hub.windows);
  h.setAdvanceMsgs(r.hub.advance_msgs);
  h.setReportMsgs(r.hub.report_msgs);
  h.setPeerMsgs(r.hub.peer_msgs);
  h.setPeerNullMsgs(r.hub.peer_null_msgs);
  h.setLbtsMsgs(r.hub.lbts_msgs);
  h.setLbtsJumps(r.hub.lbts_jumps);
  h.setYieldMsgs(r.hub.yield_msgs);
  h.setRunWallNs(r.hub.run_wall_ns);
  w.setError(r.error);
  w.setStopped(r.stopped);
  table<std::pair<uint32_t, std::string_view>> stats;
  table<std::string_view> qualifiers;
  auto nodes = w.initNodes(static_cast<unsigned>(r.nodes.size()));
  for (unsigned i = 0; i < r.nodes.size(); ++i) {
    const node_summary& n = r.nodes[i];
    auto x = nodes[i];
    x.setNode(n.node);
    x.setName(n.name);
    x.setEvents(n.stats.events);
    x.setMessagesSent(n.stats.messages_sent);
    x.setActivations(n.stats.activations);
    x.setLastEventPs(n.stats.last_event_ps);
    x.setBuildBytes(n.stats.build_bytes);
    auto figs = x.initFigures(static_cast<unsigned>(n.figures.size()));
    for (unsigned k = 0; k < n.figures.size(); ++k) {
      const figure& f = n.figures[k];
      figs[k].setValue(f.value);
      figs[k].setStat(stats.index_of({f.stat, f.pattern}));
      figs[k].setQualifier(qualifiers.index_of(f.qualifier));
    }
    auto as_data = [](const std::vector<char>& v) {
      return capnp::Data::Reader(reinterpret_cast<const kj::byte*>(v.data()), v.size());
    };
    if (!n.records.empty())
      x.setRecords(as_data(n.records));
    if (!n.ops.empty())
      x.setOps(as_data(n.ops));
    x.setPending(n.pending);
    auto tables = x.initTables(static_cast<unsigned>(n.tables.size()));
    for (unsigned k = 0; k < n.tables.size(); ++k) {
      tables[k].setTag(n.tables[k]->tag());
      tables[k].setData(as_data(n.tables[k]->encode()));
    }
  }
  auto ws = w.initStats(static_cast<unsigned>(stats.items.size()));
  for (unsigned k = 0; k < stats.items.size(); ++k) {
    ws[k].setId(stats.items[k].first);
    ws[k].setPattern(as_text(stats.items[k].second));
  }
  auto wq = w.initQualifiers(static_cast<unsigned>(qualifiers.items.size()));
  for (unsigned k = 0; k < qualifiers.items.size(); ++k)
    wq.set(k, as_text(qualifiers.items[k]));
  return flat_bytes(msg);
}

run_result decode_result(const std::vector<char>& bytes) {
  const auto words = aligned_words(bytes, "run result");
  capnp::FlatArrayMessageReader reader(words, bounded_reader(words.size()));
  const auto w = reader.getRoot<wire::RunResult>();
  run_result r;
  const auto h = w.getHub();
  r.hub.windows = h.getWindows();
  r.hub.advance_msgs = h.getAdvanceMsgs();
  r.hub.report_msgs = h.getReportMsgs();
  r.hub.peer_msgs = h.getPeerMsgs();
  r.hub.peer_null_msgs = h.getPeerNullMsgs();
  r.hub.lbts_msgs = h.getLbtsMsgs();
  r.hub.lbts_jumps = h.getLbtsJumps();
  r.hub.yield_msgs = h.getYieldMsgs();
  r.hub.run_wall_ns = h.getRunWallNs();
  r.error = w.getError().cStr();
  r.stopped = w.getStopped();
  // The tables first: a figure's index out of them is damage, named.
  std::vector<std::pair<uint32_t, std::string_view>> stats;
  for (const auto x : w.getStats())
    stats.emplace_back(x.getId(), intern_text(as_view(x.getPattern())));
  std::vector<std::string_view> qualifiers;
  for (const auto q : w.getQualifiers())
    qualifiers.push_back(intern_text(as_view(q)));
  const auto nodes = w.getNodes();
  r.nodes.reserve(nodes.size());
  for (const auto x : nodes) {
    node_summary n;
    n.node = x.getNode();
    n.name = x.getName().cStr();
    n.stats.events = x.getEvents();
    n.stats.messages_sent = x.getMessagesSent();
    n.stats.activations = x.getActivations();
    n.stats.last_event_ps = x.getLastEventPs();
    n.stats.build_bytes = x.getBuildBytes();
    const auto figs = x.getFigures();
    n.figures.reserve(figs.size());
    for (const auto f : figs) {
      if (f.getStat() >= stats.size() || f.getQualifier() >= qualifiers.size())
        throw std::runtime_error(fmt::format(
          "malformed run result: node {} has a figure of statistic {} and qualifier {}, but "
          "the result lists {} statistics and {} qualifiers",
          n.node, f.getStat(), f.getQualifier(), stats.size(), qualifiers.size()));
      const auto& [id, pattern] = stats[f.getStat()];
      n.figures.push_back({pattern, f.getValue(), id, qualifiers[f.getQualifier()]});
    }
    const auto rec = x.getRecords();
    n.records.assign(reinterpret_cast<const char*>(rec.begin()),
                     reinterpret_cast<const char*>(rec.end()));
    const auto ops = x.getOps();
    n.ops.assign(reinterpret_cast<const char*>(ops.begin()),
                 reinterpret_cast<const char*>(ops.end()));
    n.pending = x.getPending().cStr();
    for (const auto t : x.getTables()) {
      const auto data = t.getData();
      n.tables.push_back(std::make_shared<encoded_table>(
        t.getTag(), std::vector<char>(reinterpret_cast<const char*>(data.begin()),
                                      reinterpret_cast<const char*>(data.end()))));
    }
    r.nodes.push_back(std::move(n));
  }
  return r;
}

} // namespace kb
