#pragma once
// The input of a fuzz target as a file, for readers that take a path: a
// memfd (a regular file, as those readers demand), rewritten for each input
// and named through /proc/self/fd.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace kb::fuzz {

/// The path of a file holding exactly `data` (the same file every call).
inline const std::string& as_file(const uint8_t* data, size_t size) {
  static const int fd = ::memfd_create("fuzz_input", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))
    std::abort();
  return path;
}

} // namespace kb::fuzz
