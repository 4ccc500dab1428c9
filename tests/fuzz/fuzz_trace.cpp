// Fuzz target: the Cap'n Proto trace file reader. Any input must end in
// records or a std::runtime_error naming the file, in memory proportional
// to the input.

#include "runtime/trace/trace_file.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> names;
  std::vector<kb::trace_record> records;
  try {
    kb::read_trace_bytes(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz",
                         names, records);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
