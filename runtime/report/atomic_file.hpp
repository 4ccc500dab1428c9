#pragma once
// Output files that are either complete or absent: written to a temporary
// name beside the target, checked for write, flush, fsync and close errors,
// then renamed over the target. A run that cannot write a file says which
// one and why (`output_error`) instead of leaving a truncated file behind.

#include <fstream>
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
  /// Opens `path.tmp.<pid>` for writing (or `path` itself when it exists and
  /// is not a regular file, e.g. /dev/stdout: a device cannot be renamed
  /// over). `what` names the file in errors, e.g. "--json file".
  atomic_file(std::string path, std::string what);
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  /// Removes the temporary file unless `commit()` succeeded.
  ~atomic_file();

  std::ostream& stream() { return out_; }
  /// Flushes, syncs and closes the file and renames it to the target.
  /// Throws `output_error` naming the file on any failure.
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return tmp_; }

private:
  [[noreturn]] void fail(std::string_view step, int err);

  std::string path_, what_, tmp_;
  bool direct_ = false;
  bool done_ = false;
  std::ofstream out_;
};

/// Writes `data` to `path` through an `atomic_file`.
void write_file_atomically(const std::string& path, std::string_view what, std::string_view data);

} // namespace kb
