#include "runtime/io/fd_streambuf.hpp"

#include <cerrno>
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
  }
  return err_ == 0;
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
