// Fuzz target: the Cap'n Proto decoders of what a process reads from its
// peers: event batches (runtime/engine/protocol.cpp, decode_batch), run
// results and LBTS snapshots (control_wire.cpp). Any input must end in a
// value or an exception.

#include "runtime/engine/protocol.hpp"

#include <kj/exception.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<char> bytes(data, data + size);
  try {
    (void)kb::decode_batch(bytes);
  } catch (const std::runtime_error&) {
  } catch (const kj::Exception&) {
  }
  try {
    (void)kb::decode_result(bytes);
  } catch (const std::runtime_error&) {
  } catch (const kj::Exception&) {
  }
  try {
    (void)kb::decode_snapshot(bytes);
  } catch (const std::runtime_error&) {
  } catch (const kj::Exception&) {
  }
  return 0;
}
