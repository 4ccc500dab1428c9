#include "runtime/io/atomic_file.hpp"

#include "runtime/io/data_stdout.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace kb {

namespace {

/// Links followed before giving up, as the kernel does (ELOOP).
constexpr int max_link_hops = 40;

std::string directory_of(const std::string& p) {
  const std::string d = std::filesystem::path(p).parent_path().string();
  return d.empty() ? "." : d;
}

/// `path` with every symbolic link on it followed, also when the last one
/// dangles (then the path it names, which does not exist yet).
std::string follow_links(const std::string& path, const std::string& what) {
  std::string p = path;
  for (int hop = 0; hop <= max_link_hops; ++hop) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
      return p;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(p.c_str(), buf, sizeof buf);
    if (n < 0 || static_cast<size_t>(n) >= sizeof buf)
      throw output_error(fmt::format("cannot write {} '{}': cannot read the link '{}': {}",
                                     what, path, p,
                                     n < 0 ? std::strerror(errno) : "it is too long"));
    const std::string to(buf, static_cast<size_t>(n));
    p = !to.empty() && to.front() == '/' ? to : directory_of(p) + "/" + to;
  }
  throw output_error(fmt::format("cannot write {} '{}': {}", what, path, std::strerror(ELOOP)));
}

} // namespace

atomic_file::atomic_file(std::string path, std::string what)
  : path_(std::move(path)), what_(std::move(what)) {
  if (path_.empty())
    throw output_error(fmt::format("cannot write {}: the file name is empty", what_));
  if (path_ == data_stdout::name) { // standard output, written in place
    direct_ = true;
    target_ = tmp_ = path_;
    fd_ = ::fcntl(data_stdout::fd(), F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0)
      fail("", errno);
    buf_.attach(fd_);
    return;
  }
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw output_error(fmt::format("cannot write {} '{}': it is a directory", what_, path_));
  // A device, FIFO or pipe is opened by the name given: /proc/self/fd/N
  // names a pipe that no path reaches.
  direct_ = exists && !S_ISREG(st.st_mode);
  target_ = direct_ ? path_ : follow_links(path_, what_);
  if (!exists && target_ != path_) {
    struct stat dir {};
    if (::stat(directory_of(target_).c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode))
      throw output_error(fmt::format(
        "cannot write {} '{}': it is a link to '{}', whose directory does not exist", what_,
        path_, target_));
  }
  tmp_ = direct_ ? target_ : fmt::format("{}.tmp.{}", target_, ::getpid());
  fd_ = direct_ ? ::open(tmp_.c_str(), O_WRONLY | O_CLOEXEC)
                : ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0)
    fail("", errno);
  if (!direct_)
    tmp_on_signal_ = signal_cleanup::file(tmp_);
  // The replaced file keeps its permissions.
  if (exists && !direct_)
    ::fchmod(fd_, st.st_mode & 07777);
  buf_.attach(fd_, /*writeback=*/!direct_);
}

atomic_file::~atomic_file() {
  close_fd();
  if (!done_ && !direct_)
    ::unlink(tmp_.c_str());
  tmp_on_signal_.release();
}

void atomic_file::close_fd() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

void atomic_file::fail(std::string_view step, int err) {
  const std::string reason = err != 0 ? std::strerror(err) : "I/O error";
  close_fd();
  if (!direct_ && !tmp_.empty())
    ::unlink(tmp_.c_str());
  done_ = true;
  throw output_error(fmt::format("cannot write {} '{}'{}: {}", what_, path_, step, reason));
}

void atomic_file::commit() {
  if (!buf_.drain())
    fail("", buf_.error());
  // The data must be on disk before the rename makes it the target.
  if (!direct_ && ::fsync(fd_) != 0)
    fail(" (fsync)", errno);
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0)
    fail(" (close)", errno);
  if (!direct_ && ::rename(tmp_.c_str(), target_.c_str()) != 0)
    fail(fmt::format(" (rename from '{}')", tmp_), errno);
  tmp_on_signal_.release(); // the target now: kept
  done_ = true;
}

void check_writable(const std::string& path, std::string_view what) {
  auto refuse = [&](const std::string& why) {
    throw output_error(fmt::format("cannot write {} '{}': {}", what, path, why));
  };
  if (path.empty())
    throw output_error(fmt::format("cannot write {}: the file name is empty", what));
  if (path == data_stdout::name)
    return;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      refuse("it is a directory");
    if (::access(path.c_str(), W_OK) != 0)
      refuse(std::strerror(errno));
    if (!S_ISREG(st.st_mode))
      return; // written in place
  }
  const std::string dir = directory_of(follow_links(path, std::string(what)));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    refuse(std::strerror(errno));
}

void write_file_atomically(const std::string& path, std::string_view what, std::string_view data) {
  atomic_file f(path, std::string(what));
  f.stream().write(data.data(), static_cast<std::streamsize>(data.size()));
  f.commit();
}

} // namespace kb
