#include "runtime/report/atomic_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kb {

atomic_file::atomic_file(std::string path, std::string what)
  : path_(std::move(path)), what_(std::move(what)) {
  if (path_.empty())
    throw output_error(fmt::format("cannot write {}: the file name is empty", what_));
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw output_error(
        fmt::format("cannot write {} '{}': it is a directory", what_, path_));
    direct_ = !S_ISREG(st.st_mode);
  }
  tmp_ = direct_ ? path_ : fmt::format("{}.tmp.{}", path_, ::getpid());
  errno = 0;
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_)
    fail("", errno);
}

atomic_file::~atomic_file() {
  if (!done_ && !direct_) {
    out_.close();
    ::unlink(tmp_.c_str());
  }
}

void atomic_file::fail(std::string_view step, int err) {
  const std::string reason = err != 0 ? std::strerror(err) : "I/O error";
  if (!direct_) {
    out_.close();
    ::unlink(tmp_.c_str());
  }
  done_ = true;
  throw output_error(fmt::format("cannot write {} '{}'{}: {}", what_, path_, step, reason));
}

void atomic_file::commit() {
  // A write that already failed left its errno; otherwise the flush's.
  if (!out_)
    fail("", errno);
  errno = 0;
  out_.flush();
  if (!out_)
    fail("", errno);
  out_.close();
  if (!out_)
    fail(" (close)", errno);
  if (!direct_) {
    // The data must be on disk before the rename makes it the target.
    const int fd = ::open(tmp_.c_str(), O_RDONLY);
    if (fd < 0 || ::fsync(fd) != 0) {
      const int err = errno;
      if (fd >= 0)
        ::close(fd);
      fail(" (fsync)", err);
    }
    ::close(fd);
    if (::rename(tmp_.c_str(), path_.c_str()) != 0)
      fail(fmt::format(" (rename from '{}')", tmp_), errno);
  }
  done_ = true;
}

void write_file_atomically(const std::string& path, std::string_view what, std::string_view data) {
  atomic_file f(path, std::string(what));
  f.stream().write(data.data(), static_cast<std::streamsize>(data.size()));
  f.commit();
}

} // namespace kb
