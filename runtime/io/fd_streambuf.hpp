#pragma once
// An output stream buffer over a file descriptor with a fixed buffer: bytes
// go to the descriptor as the buffer fills, so a pipe or FIFO reader sees
// them while the run goes and memory stays bounded. The first failed write
// is kept (its errno) and everything after it is dropped, so a full or
// broken device costs neither memory nor time until the caller checks.

#include <array>
#include <cstdint>
#include <streambuf>

namespace kb {

class fd_streambuf : public std::streambuf {
public:
  fd_streambuf();
  fd_streambuf(const fd_streambuf&) = delete;
  fd_streambuf& operator=(const fd_streambuf&) = delete;

  /// Writes to `fd` from now on (not owned: the caller closes it). With
  /// `writeback` (a regular file that is synced when done), the kernel is
  /// asked to start writing each `writeback_bytes` out as they are
  /// written, so that the final fsync waits for the last stretch only
  /// (a 129 MB trace stream waited 0.19 s in
  /// its fsync without this; bench/trace_cost.sh).
  void attach(int fd, bool writeback = false) {
    fd_ = fd;
    writeback_ = writeback;
  }
  static constexpr uint64_t writeback_bytes = 1u << 20;
  /// Writes out what is buffered; false if this or an earlier write failed.
  bool drain();
  /// errno of the first failed write, 0 if none failed.
  int error() const { return err_; }

protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override { return drain() ? 0 : -1; }

private:
  bool write_all(const char* p, size_t n);

  void start_writeback();

  int fd_ = -1;
  int err_ = 0;
  bool writeback_ = false;
  uint64_t written_ = 0; ///< bytes written to fd_
  uint64_t kicked_ = 0;  ///< bytes whose write-back has been started
  std::array<char, 64 * 1024> buf_{};
};

} // namespace kb
