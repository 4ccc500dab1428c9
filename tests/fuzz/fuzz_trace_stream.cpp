// Fuzz target: the trace reader of `kernbench trace stats|convert`, both
// forms (a TraceFile, a `--trace-stream` stream of chunks). Any input must
// end in records, each node's in time order, or a std::runtime_error naming
// the file. The input is a memfd read through /proc/self/fd, as the reader
// reads a file.

#include "runtime/trace/trace_stream_reader.hpp"
#include "tests/fuzz/fuzz_file.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = kb::fuzz::as_file(data, size);
  try {
    const kb::trace_reader in(path);
    uint64_t n = 0;
    in.for_each_merged([&](const kb::trace_record&) { ++n; });
    if (n != in.record_count())
      std::abort();
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).find(path) == std::string::npos) // names the file
      std::abort();
  }
  return 0;
}
