#pragma once
// The Cap'n Proto encoding (messages/sim.capnp) of the engine's control
// messages that carry data between processes: a hub's LBTS snapshot and a
// process's part of the run's results. Their `inspect` (protocol.hpp) calls
// these, so what crosses a process is these bytes. Decoding damaged bytes
// throws std::runtime_error naming what is wrong.

#include "runtime/engine/lbts_rounds.hpp"

#include <capnp/message.h>
#include <kj/array.h>

#include <vector>

namespace kb {

struct run_result;

/// `bytes` copied into word-aligned storage for a Cap'n Proto reader;
/// throws naming `what` if they cannot be a message.
kj::Array<capnp::word> aligned_words(const std::vector<char>& bytes, const char* what);
/// The message as one flat array of bytes (capnp::messageToFlatArray).
std::vector<char> flat_bytes(capnp::MessageBuilder& msg);
/// Reader limits proportional to a message of `words` words.
capnp::ReaderOptions bounded_reader(size_t words);

std::vector<char> encode_snapshot(const hub_snapshot& s);
hub_snapshot decode_snapshot(const std::vector<char>& bytes);

std::vector<char> encode_result(const run_result& r);
run_result decode_result(const std::vector<char>& bytes);

} // namespace kb
