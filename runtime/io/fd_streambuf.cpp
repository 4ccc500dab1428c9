#include "runtime/io/fd_streambuf.hpp"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace kb {

fd_streambuf::fd_streambuf() { setp(buf_.data(), buf_.data() + buf_.size()); }

bool fd_streambuf::write_all(const char* p, size_t n) {
  while (n > 0 && err_ == 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      err_ = w < 0 && errno != 0 ? errno : EIO;
      break;
    }
    p += w;
    n -= static_cast<size_t>(w);
    written_ += static_cast<uint64_t>(w);
  }
  if (writeback_ && written_ - kicked_ >= writeback_bytes)
    start_writeback();
  return err_ == 0;
}

void fd_streambuf::start_writeback() {
  // Asynchronous: returns once the pages are queued for writing. A failure
  // (a file system without it) only loses the head start; the fsync at the
  // end still reports any write error.
  (void)::sync_file_range(fd_, static_cast<off_t>(kicked_),
                          static_cast<off_t>(written_ - kicked_), SYNC_FILE_RANGE_WRITE);
  kicked_ = written_;
}

bool fd_streambuf::drain() {
  const auto n = static_cast<size_t>(pptr() - pbase());
  // After a failure the bytes are dropped: nothing is kept for a retry.
  setp(buf_.data(), buf_.data() + buf_.size());
  return write_all(buf_.data(), n);
}

fd_streambuf::int_type fd_streambuf::overflow(int_type c) {
  if (!drain())
    return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

std::streamsize fd_streambuf::xsputn(const char* s, std::streamsize n) {
  const auto room = static_cast<std::streamsize>(epptr() - pptr());
  if (n <= room) {
    traits_type::copy(pptr(), s, static_cast<size_t>(n));
    pbump(static_cast<int>(n));
    return n;
  }
  // Large writes go straight to the descriptor after what is buffered.
  if (!drain() || !write_all(s, static_cast<size_t>(n)))
    return 0;
  return n;
}

} // namespace kb
