#pragma once
// Output files that are either complete or absent: written to a temporary
// name beside the target, checked for write, fsync and close errors, then
// renamed over the target. A run that cannot write a file says which one and
// why (`output_error`) instead of leaving a truncated file behind.
//
// A symbolic link is followed: the temporary is made beside the file it
// names and renamed over that file, so the link stays (a dangling link gets
// its target created when the target's directory exists). A target that is
// not a regular file (a character device, a FIFO, a pipe such as
// /proc/self/fd/1) is opened and written in place, streamed through a fixed
// buffer: nothing can be renamed over it. The name "-" is standard output
// (runtime/io/data_stdout.hpp), written in place too.

#include "runtime/io/fd_streambuf.hpp"
#include "runtime/io/signal_cleanup.hpp"

#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kb {

/// A file could not be written; the message names it and the reason.
class output_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class atomic_file {
public:
  /// Opens the temporary `target.tmp.<pid>` for writing, or the file itself
  /// when it is not a regular file. `what` names the file in errors, e.g.
  /// "--json file".
  atomic_file(std::string path, std::string what);
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  /// Removes the temporary file unless `commit()` succeeded.
  ~atomic_file();

  std::ostream& stream() { return out_; }
  /// Writes out the buffer, syncs and closes the file and renames it to the
  /// target. Throws `output_error` naming the file on any failure (the
  /// temporary is removed then).
  void commit();

  /// The path as given (named in errors).
  const std::string& path() const { return path_; }
  /// The file that gets the content: `path` with symbolic links followed.
  const std::string& target() const { return target_; }
  const std::string& temp_path() const { return tmp_; }
  /// Written in place (a device, FIFO or pipe), not through a temporary.
  bool in_place() const { return direct_; }

private:
  [[noreturn]] void fail(std::string_view step, int err);
  void close_fd();

  std::string path_, what_, target_, tmp_;
  signal_cleanup::entry tmp_on_signal_; ///< the temporary goes on SIGINT/SIGTERM
  bool direct_ = false;
  bool done_ = false;
  int fd_ = -1;
  fd_streambuf buf_;
  std::ostream out_{&buf_};
};

/// Throws `output_error` (as atomic_file would word it) unless `path`
/// could be written: an existing file must allow writing, a new one's
/// directory new entries. Creates, opens and truncates nothing, so a run
/// that fails later leaves the path as it found it.
void check_writable(const std::string& path, std::string_view what);

/// Writes `data` to `path` through an `atomic_file`.
void write_file_atomically(const std::string& path, std::string_view what, std::string_view data);

} // namespace kb
