#pragma once
// An output stream that gzips what is written to it into another stream
// (zlib, the gzip format Perfetto and chrome://tracing open), in constant
// memory: a fixed input buffer is deflated as it fills. The header carries
// no time or name, so the same bytes in give the same file.

#include <array>
#include <memory>
#include <ostream>
#include <streambuf>

struct z_stream_s;

namespace kb {

class gzip_ostream {
public:
  /// Gzips into `sink` (not owned; it must outlive this).
  explicit gzip_ostream(std::ostream& sink);
  gzip_ostream(const gzip_ostream&) = delete;
  gzip_ostream& operator=(const gzip_ostream&) = delete;
  ~gzip_ostream();

  std::ostream& stream() { return out_; }
  /// Deflates what is left and writes the gzip trailer; the sink then holds
  /// the whole file. Throws std::runtime_error if zlib fails.
  void finish();

private:
  class buffer : public std::streambuf {
  public:
    explicit buffer(gzip_ostream& owner);
    size_t used() const { return static_cast<size_t>(pptr() - pbase()); }
    void reset() { setp(pbase(), epptr()); }

  protected:
    int_type overflow(int_type c) override;
    int sync() override { return 0; }

  private:
    gzip_ostream& owner_;
  };

  /// Deflates the input buffer's bytes with `flush` (Z_NO_FLUSH, Z_FINISH).
  void deflate_input(int flush);

  std::ostream& sink_;
  std::unique_ptr<z_stream_s> z_;
  std::array<char, 64 * 1024> in_{};
  std::array<char, 64 * 1024> zout_{};
  buffer buf_{*this};
  std::ostream out_{&buf_};
  bool finished_ = false;
};

} // namespace kb
