#include "runtime/cli/peer_protocol.hpp"

#include "kb_version.hpp"
#include "messages/peer.capnp.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

namespace kb {

std::string peer_identity::text() const {
  return fmt::format("kernbench {} ({}), peer protocol {}", version, git_hash, protocol);
}

peer_identity this_build() { return {peer_protocol_version, version, git_hash}; }

namespace {

void hash_bytes(uint64_t& h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
}

void hash_text(uint64_t& h, const std::string& s) {
  const uint64_t n = s.size(); // length first: "ab"+"c" differs from "a"+"bc"
  hash_bytes(h, &n, sizeof n);
  hash_bytes(h, s.data(), s.size());
}

void set_identity(wire::Identity::Builder w, const peer_identity& id) {
  w.setProtocol(id.protocol);
  w.setVersion(id.version);
  w.setGitHash(id.git_hash);
}

peer_identity get_identity(wire::Identity::Reader r) {
  return {r.getProtocol(), r.getVersion().cStr(), r.getGitHash().cStr()};
}

} // namespace

uint64_t config_hash(const peer_job& job) {
  uint64_t h = 0xcbf29ce484222325ull;
  hash_text(h, job.topology);
  const uint64_t n = job.args.size();
  hash_bytes(h, &n, sizeof n);
  for (const auto& a : job.args)
    hash_text(h, a);
  hash_bytes(h, &job.ranks, sizeof job.ranks);
  return h;
}

const char* to_string(peer_frame::kind k) {
  switch (k) {
    case peer_frame::kind::hello: return "hello";
    case peer_frame::kind::welcome: return "welcome";
    case peer_frame::kind::refuse: return "refuse";
    case peer_frame::kind::job: return "job";
    case peer_frame::kind::accepted: return "accepted";
    case peer_frame::kind::go: return "go";
    case peer_frame::kind::heartbeat: return "heartbeat";
    case peer_frame::kind::done: return "done";
  }
  return "?";
}

std::vector<char> encode_frame(const peer_frame& f) {
  capnp::MallocMessageBuilder msg;
  auto root = msg.initRoot<wire::PeerFrame>();
  switch (f.what) {
    case peer_frame::kind::hello: set_identity(root.initHello(), f.identity); break;
    case peer_frame::kind::welcome: set_identity(root.initWelcome(), f.identity); break;
    case peer_frame::kind::refuse: root.setRefuse(f.text); break;
    case peer_frame::kind::job: {
      auto j = root.initJob();
      j.setRank(f.job.rank);
      j.setRanks(f.job.ranks);
      j.setTopology(f.job.topology);
      auto args = j.initArgs(static_cast<unsigned>(f.job.args.size()));
      for (unsigned i = 0; i < f.job.args.size(); ++i)
        args.set(i, f.job.args[i]);
      j.setConfigHash(f.job.config_hash);
      break;
    }
    case peer_frame::kind::accepted: root.setAccepted(); break;
    case peer_frame::kind::go: root.setGo(f.port); break;
    case peer_frame::kind::heartbeat: root.setHeartbeat(); break;
    case peer_frame::kind::done: {
      auto d = root.initDone();
      d.setStatus(f.done.status);
      d.setMessage(f.done.message);
      d.setWireMsgs(f.done.wire.msgs);
      d.setWireEvents(f.done.wire.events);
      d.setWireBytes(f.done.wire.bytes);
      break;
    }
  }
  auto words = capnp::messageToFlatArray(msg);
  auto bytes = words.asChars();
  return {bytes.begin(), bytes.end()};
}

peer_frame decode_frame(const char* data, size_t size) {
  if (size == 0 || size % sizeof(capnp::word) != 0)
    throw std::runtime_error(
      fmt::format("malformed frame: {} bytes is not a whole number of Cap'n Proto words", size));
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(size / sizeof(capnp::word));
  std::memcpy(words.begin(), data, size);
  capnp::ReaderOptions opts;
  opts.traversalLimitInWords = uint64_t{words.size()} * 8 + 1024;
  peer_frame f;
  try {
    capnp::FlatArrayMessageReader reader(words, opts);
    auto root = reader.getRoot<wire::PeerFrame>();
    switch (root.which()) {
      case wire::PeerFrame::HELLO:
        f.what = peer_frame::kind::hello;
        f.identity = get_identity(root.getHello());
        break;
      case wire::PeerFrame::WELCOME:
        f.what = peer_frame::kind::welcome;
        f.identity = get_identity(root.getWelcome());
        break;
      case wire::PeerFrame::REFUSE:
        f.what = peer_frame::kind::refuse;
        f.text = root.getRefuse().cStr();
        break;
      case wire::PeerFrame::JOB: {
        f.what = peer_frame::kind::job;
        auto j = root.getJob();
        f.job.rank = j.getRank();
        f.job.ranks = j.getRanks();
        f.job.topology = j.getTopology().cStr();
        for (auto a : j.getArgs())
          f.job.args.emplace_back(a.cStr());
        f.job.config_hash = j.getConfigHash();
        break;
      }
      case wire::PeerFrame::ACCEPTED: f.what = peer_frame::kind::accepted; break;
      case wire::PeerFrame::GO:
        f.what = peer_frame::kind::go;
        f.port = root.getGo();
        break;
      case wire::PeerFrame::HEARTBEAT: f.what = peer_frame::kind::heartbeat; break;
      case wire::PeerFrame::DONE: {
        f.what = peer_frame::kind::done;
        auto d = root.getDone();
        f.done.status = d.getStatus();
        f.done.message = d.getMessage().cStr();
        f.done.wire = {d.getWireMsgs(), d.getWireEvents(), d.getWireBytes()};
        break;
      }
      default: throw std::runtime_error("malformed frame: unknown kind");
    }
  } catch (const kj::Exception& e) {
    throw std::runtime_error(fmt::format("malformed frame: {}", e.getDescription().cStr()));
  }
  return f;
}

} // namespace kb
