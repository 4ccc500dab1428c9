#pragma once
// The frames `kernbench run` (the launcher, rank 0) and `kernbench peer`
// exchange on their control connection (messages/peer.capnp,
// docs/adr/0010-multi-host-runs.md):
//
//   launcher                         peer
//   hello(identity)          ->
//                            <-      welcome(identity) | refuse(why)
//   job(rank, YAML, options) ->
//                            <-      accepted | refuse(why)
//   go(rank 0's port)        ->      (starts its part: `kernbench run --rank R`)
//   heartbeat                <->     heartbeat, every second while connected
//                            <-      done(exit status, stderr tail, wire counters)
//
// A version or configuration mismatch is refused before anything runs.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace kb {

/// Bumped whenever a frame changes meaning.
inline constexpr uint32_t peer_protocol_version = 2;

/// How often both sides send a heartbeat, and how long a silent side is
/// still trusted: a peer (or the launcher) is lost after `peer_silence`.
inline constexpr std::chrono::milliseconds peer_heartbeat{1000};
inline constexpr std::chrono::milliseconds peer_silence{5000};

struct peer_identity {
  uint32_t protocol = peer_protocol_version;
  std::string version;
  std::string git_hash;
  /// "kernbench 0.1.0 (abc1234), peer protocol 1"
  std::string text() const;
  bool operator==(const peer_identity&) const = default;
};

/// This build's identity.
peer_identity this_build();

struct peer_job {
  uint32_t rank = 0;
  uint32_t ranks = 1;
  std::string topology;   ///< topology YAML text
  std::vector<std::string> args; ///< `kernbench run` options shared by every part
  uint64_t config_hash = 0;
};

/// FNV-1a (64 bit) over the topology text, the options and the rank count:
/// what every process of a run must agree on.
uint64_t config_hash(const peer_job& job);

struct wire_totals {
  uint64_t msgs = 0, events = 0, bytes = 0;
  wire_totals& operator+=(const wire_totals& o) {
    msgs += o.msgs;
    events += o.events;
    bytes += o.bytes;
    return *this;
  }
};

struct peer_done {
  int32_t status = 0;
  std::string message;
  wire_totals wire;
};

struct peer_frame {
  enum class kind { hello, welcome, refuse, job, accepted, go, heartbeat, done };
  kind what = kind::heartbeat;
  peer_identity identity; ///< hello, welcome
  std::string text;       ///< refuse
  peer_job job;           ///< job
  uint16_t port = 0;      ///< go
  peer_done done;         ///< done

  static peer_frame hello() { return {kind::hello, this_build(), {}, {}, 0, {}}; }
  static peer_frame welcome() { return {kind::welcome, this_build(), {}, {}, 0, {}}; }
  static peer_frame refuse(std::string why) { return {kind::refuse, {}, std::move(why), {}, 0, {}}; }
  static peer_frame simple(kind k) { return {k, {}, {}, {}, 0, {}}; }
};

const char* to_string(peer_frame::kind k);

/// One frame as a flat Cap'n Proto message.
std::vector<char> encode_frame(const peer_frame& f);
/// Throws std::runtime_error on a malformed frame.
peer_frame decode_frame(const char* data, size_t size);

} // namespace kb
