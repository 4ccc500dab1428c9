// Fuzz target: the Cap'n Proto batch decoder, what a process reads from its
// peers (runtime/engine/protocol.cpp, decode_batch). Any input must end in
// a batch or an exception.

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
  return 0;
}
