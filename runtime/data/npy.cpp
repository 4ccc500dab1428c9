#include "runtime/data/npy.hpp"

#include "runtime/data/dtype_convert.hpp"
#include "runtime/io/atomic_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <tuple>
#include <utility>
#include <fstream>
#include <stdexcept>

namespace kb {

namespace {

constexpr char magic[] = "\x93NUMPY";
constexpr size_t magic_len = 6;
constexpr size_t align = 64; // NumPy >= 1.x pads headers to 64 bytes

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: not a usable .npy file: {}", path, what));
}

uint64_t product(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape)
    n *= d;
  return n;
}

std::string shape_repr(const std::vector<uint64_t>& shape) {
  // Python's tuple repr: (), (5,), (2, 3).
  if (shape.size() == 1)
    return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

/// What the file stores for `t`: bf16 is widened to f32.
dtype stored_type(dtype t) { return t == dtype::bf16 ? dtype::f32 : t; }

// -- header parsing ------------------------------------------------------------

struct header_parser {
  const std::string& path;
  std::string_view text;

  size_t value_of(std::string_view key) const {
    for (char q : {'\'', '"'}) {
      const std::string k = fmt::format("{}{}{}", q, key, q);
      size_t at = text.find(k);
      if (at == std::string_view::npos)
        continue;
      at += k.size();
      while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
        ++at;
      if (at >= text.size() || text[at] != ':')
        fail(path, fmt::format("the header has no ':' after '{}'", key));
      ++at;
      while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
        ++at;
      return at;
    }
    fail(path, fmt::format("the header has no '{}' key", key));
  }

  std::string descr() const {
    size_t at = value_of("descr");
    if (at >= text.size() || (text[at] != '\'' && text[at] != '"'))
      fail(path, "the 'descr' value is not a string");
    const size_t end = text.find(text[at], at + 1);
    if (end == std::string_view::npos)
      fail(path, "the 'descr' string is not closed");
    return std::string(text.substr(at + 1, end - at - 1));
  }

  bool fortran_order() const {
    const size_t at = value_of("fortran_order");
    if (text.substr(at, 5) == "False")
      return false;
    if (text.substr(at, 4) == "True")
      return true;
    fail(path, "the 'fortran_order' value is neither True nor False");
  }

  std::vector<uint64_t> shape() const {
    size_t at = value_of("shape");
    if (at >= text.size() || text[at] != '(')
      fail(path, "the 'shape' value is not a tuple");
    const size_t end = text.find(')', at);
    if (end == std::string_view::npos)
      fail(path, "the 'shape' tuple is not closed");
    std::vector<uint64_t> dims;
    std::string_view body = text.substr(at + 1, end - at - 1);
    size_t i = 0;
    while (i < body.size()) {
      while (i < body.size() && (body[i] == ' ' || body[i] == ','))
        ++i;
      if (i == body.size())
        break;
      if (!std::isdigit(static_cast<unsigned char>(body[i])))
        fail(path, fmt::format("the shape {} is not a tuple of sizes", std::string(body)));
      uint64_t d = 0;
      while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) {
        if (d > (~uint64_t{0} - 9) / 10)
          fail(path, "a dimension of the shape is too large");
        d = d * 10 + static_cast<uint64_t>(body[i++] - '0');
      }
      dims.push_back(d);
    }
    return dims;
  }
};

/// The element type of descr `d`: a dtype, or one of the extra types.
std::pair<dtype, npy_extra> parse_descr(const std::string& path, const std::string& d) {
  if (d == "<f4")
    return {dtype::f32, npy_extra::none};
  if (d == "<f2")
    return {dtype::f16, npy_extra::none};
  if (d == "|i1" || d == "<i1")
    return {dtype::i8, npy_extra::none};
  if (d == "<i4")
    return {dtype::i32, npy_extra::none};
  if (d == "<f8")
    return {dtype::f32, npy_extra::f64};
  if (d == "<i8")
    return {dtype::f32, npy_extra::i64};
  if (d == "|u1" || d == "<u1")
    return {dtype::f32, npy_extra::u8};
  fail(path, fmt::format("unsupported descr '{}' (kernbench reads <f4, <f2, |i1, <i4, <f8, <i8 "
                         "and |u1)",
                         d));
}

} // namespace

uint64_t npy_array::elements() const { return product(shape); }

uint32_t npy_array::element_bytes() const {
  switch (extra) {
  case npy_extra::f64:
  case npy_extra::i64:
    return 8;
  case npy_extra::u8:
    return 1;
  case npy_extra::none:
    break;
  }
  return dtype_bytes(type);
}

std::string npy_array::descr() const {
  switch (extra) {
  case npy_extra::f64:
    return "<f8";
  case npy_extra::i64:
    return "<i8";
  case npy_extra::u8:
    return "|u1";
  case npy_extra::none:
    break;
  }
  return npy_descr(type);
}

std::string npy_descr(dtype t) {
  switch (stored_type(t)) {
  case dtype::f32:
    return "<f4";
  case dtype::f16:
    return "<f2";
  case dtype::i8:
    return "|i1";
  case dtype::i32:
    return "<i4";
  case dtype::bf16:
    break;
  }
  throw std::invalid_argument("npy_descr: unknown dtype");
}

std::string npy_header(dtype t, const std::vector<uint64_t>& shape) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                 npy_descr(t), shape_repr(shape));
  // As numpy.lib.format._wrap_header: pad so magic + version + length + dict
  // + '\n' is a multiple of 64 (a whole extra 64 if it already is).
  const size_t prefix = magic_len + 2 + 2;
  const size_t pad = align - (prefix + dict.size() + 1) % align;
  dict.append(pad, ' ');
  dict.push_back('\n');
  std::string h(magic, magic_len);
  h.push_back('\x01');
  h.push_back('\x00');
  h.push_back(static_cast<char>(dict.size() & 0xff));
  h.push_back(static_cast<char>(dict.size() >> 8));
  return h + dict;
}

void write_npy(const std::string& path, const npy_array& a) {
  if (a.extra != npy_extra::none)
    throw std::runtime_error(fmt::format("{}: kernbench writes only its own dtypes", path));
  const uint64_t n = a.elements();
  if (a.data.size() != n * dtype_bytes(a.type))
    throw std::runtime_error(fmt::format("{}: {} data bytes for shape {} of {}", path,
                                         a.data.size(), shape_repr(a.shape), to_string(a.type)));
  std::vector<uint8_t> widened;
  const std::vector<uint8_t>* data = &a.data;
  if (a.type == dtype::bf16) { // exact widening to f32
    std::vector<float> f(n);
    decode_f32(dtype::bf16, a.data, f);
    widened.resize(n * 4);
    encode_f32(dtype::f32, f, widened);
    data = &widened;
  }
  // Complete or absent (atomic_file): a full disk or a signal leaves no
  // truncated .npy, and an existing file is replaced only by a whole one.
  try {
    atomic_file out(path, ".npy file");
    const std::string h = npy_header(a.type, a.shape);
    out.stream().write(h.data(), static_cast<std::streamsize>(h.size()));
    out.stream().write(reinterpret_cast<const char*>(data->data()),
                       static_cast<std::streamsize>(data->size()));
    out.commit();
  } catch (const output_error& e) {
    throw std::runtime_error(e.what());
  }
}

void write_npy(const std::string& path, const memory_image& m, const tensor_view& v) {
  write_npy(path, npy_array{v.type, {v.rows, v.cols}, load_bytes(m, v)});
}

void write_npy(const std::string& path, std::span<const float> values,
               const std::vector<uint64_t>& shape, dtype t) {
  npy_array a{t, shape, {}};
  if (values.size() != a.elements())
    throw std::runtime_error(fmt::format("{}: {} values for shape {}", path, values.size(),
                                         shape_repr(shape)));
  a.data.resize(values.size() * dtype_bytes(t));
  encode_f32(t, values, a.data);
  write_npy(path, a);
}

npy_array read_npy(const std::string& path) {
  // Only a regular file, and no more of it than its header says: a
  // directory made the stream fail with a library message, and a device
  // (/dev/zero) was read until memory ran out (issue 35).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw std::runtime_error(fmt::format("{}: cannot open for reading: {}", path,
                                         std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    fail(path, S_ISDIR(st.st_mode) ? "it is a directory" : "it is not a regular file (a device, "
                                                           "FIFO or socket)");
  const auto size = static_cast<uint64_t>(st.st_size);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(fmt::format("{}: cannot open for reading", path));
  // The header first (at most 1 MiB: NumPy's are a few hundred bytes), the
  // data only once the file's size matches the shape it declares.
  constexpr uint64_t max_header = uint64_t{1} << 20;
  std::string file(static_cast<size_t>(std::min(size, max_header)), '\0');
  in.read(file.data(), static_cast<std::streamsize>(file.size()));
  file.resize(static_cast<size_t>(in.gcount()));
  if (file.size() < magic_len + 2 || file.compare(0, magic_len, magic, magic_len) != 0)
    fail(path, "it does not start with the NumPy magic \\x93NUMPY");
  const auto major = static_cast<uint8_t>(file[magic_len]);
  size_t len_bytes = 0;
  if (major == 1)
    len_bytes = 2;
  else if (major == 2 || major == 3)
    len_bytes = 4;
  else
    fail(path, fmt::format("format version {}.{} (kernbench reads 1.0 to 3.0)", major,
                           static_cast<uint8_t>(file[magic_len + 1])));
  const size_t prefix = magic_len + 2 + len_bytes;
  if (file.size() < prefix)
    fail(path, "the file ends inside the header length");
  uint64_t header_len = 0;
  for (size_t i = 0; i < len_bytes; ++i)
    header_len |= uint64_t{static_cast<uint8_t>(file[magic_len + 2 + i])} << (8 * i);
  if (header_len > max_header - prefix && size >= prefix + header_len)
    fail(path, fmt::format("a header of {} bytes (kernbench reads headers up to {} bytes)",
                           header_len, max_header - prefix));
  if (file.size() < prefix + header_len)
    fail(path, fmt::format("the file ends inside the header ({} of {} header bytes)",
                           file.size() - prefix, header_len));
  const std::string_view text(file.data() + prefix, header_len);
  header_parser p{path, text};
  npy_array a;
  std::tie(a.type, a.extra) = parse_descr(path, p.descr());
  if (p.fortran_order())
    fail(path, "Fortran order (kernbench reads C order only)");
  a.shape = p.shape();
  uint64_t want = a.element_bytes();
  for (uint64_t d : a.shape)
    if (__builtin_mul_overflow(want, d, &want))
      fail(path, fmt::format("shape {} is too large", shape_repr(a.shape)));
  const uint64_t have = size - prefix - header_len;
  if (have != want)
    fail(path, fmt::format("shape {} of {} needs {} data bytes, the file holds {}{}",
                           shape_repr(a.shape), a.descr(), want, have,
                           have < want ? " (truncated)" : ""));
  a.data.resize(static_cast<size_t>(want));
  const uint64_t head = std::min<uint64_t>(file.size() - prefix - header_len, want);
  if (want == 0) // an empty array (a 0 in its shape): no data to copy from or into
    return a;
  std::memcpy(a.data.data(), file.data() + prefix + header_len, static_cast<size_t>(head));
  in.read(reinterpret_cast<char*>(a.data.data()) + head, static_cast<std::streamsize>(want - head));
  if (static_cast<uint64_t>(in.gcount()) != want - head)
    fail(path, fmt::format("it changed while read ({} of {} data bytes)", head + in.gcount(), want));
  return a;
}

void read_npy_into(const std::string& path, memory_image& m, const tensor_view& v) {
  const npy_array a = read_npy(path);
  const bool fits = (a.shape.size() == 2 && a.shape[0] == v.rows && a.shape[1] == v.cols) ||
                    (a.shape.size() == 1 && a.shape[0] == v.elements());
  if (!fits)
    throw std::runtime_error(fmt::format("{}: an array of shape {} does not fill tensor {}", path,
                                         shape_repr(a.shape), to_string(v)));
  if (a.type == v.type && a.extra == npy_extra::none)
    store_bytes(m, v, a.data);
  else
    store_f32(m, v, to_f32(a));
}

std::vector<float> to_f32(const npy_array& a) {
  std::vector<float> out(a.elements());
  if (a.extra == npy_extra::none) {
    decode_f32(a.type, a.data, out);
    return out;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const uint8_t* p = a.data.data() + i * a.element_bytes();
    if (a.extra == npy_extra::u8) {
      out[i] = *p;
    } else if (a.extra == npy_extra::f64) {
      double d;
      std::memcpy(&d, p, 8);
      out[i] = static_cast<float>(d);
    } else {
      int64_t v;
      std::memcpy(&v, p, 8);
      out[i] = static_cast<float>(v);
    }
  }
  return out;
}

} // namespace kb
