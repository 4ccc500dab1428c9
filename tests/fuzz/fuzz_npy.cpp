// Fuzz target: the .npy reader (`run --input NAME=FILE.npy`). Any input
// must end in an array whose data matches its shape and converts to f32, or
// a std::runtime_error naming the file; never more memory than the file.
// The input is a memfd read through /proc/self/fd, a regular file as the
// reader demands.

#include "runtime/data/npy.hpp"
#include "tests/fuzz/fuzz_file.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = kb::fuzz::as_file(data, size);
  try {
    const kb::npy_array a = kb::read_npy(path);
    if (a.data.size() != a.elements() * a.element_bytes() || a.data.size() > size)
      std::abort();
    if (kb::to_f32(a).size() != a.elements())
      std::abort();
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind(path, 0) != 0) // names the file
      std::abort();
  }
  return 0;
}
