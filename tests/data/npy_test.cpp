// .npy files: NumPy's exact 1.0 headers, round trips, clear errors.

#include "runtime/data/npy.hpp"
#include "runtime/data/npy_convert.hpp"

#include "test_files.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

namespace kb {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string error_of(const std::string& path) {
  try {
    read_npy(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(npy, headers_are_numpys_bytes_padded_to_64) {
  // The dict is 59 characters; 10 + 59 + 1 = 70, padded with 58 spaces to 128.
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(npy_header(dtype::f32, {2, 3}),
            std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict + std::string(58, ' ') + "\n");
  // 1-D: Python's one-tuple "(5,)"; 57 characters, 60 spaces.
  EXPECT_EQ(npy_header(dtype::f16, {5}),
            std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
              "{'descr': '<f2', 'fortran_order': False, 'shape': (5,), }" + std::string(60, ' ') +
              "\n");
  EXPECT_EQ(npy_descr(dtype::i8), "|i1");
  EXPECT_EQ(npy_descr(dtype::i32), "<i4");
  EXPECT_EQ(npy_descr(dtype::bf16), "<f4");
}

TEST(npy, a_file_is_header_then_data_and_reads_back) {
  test::temp_file f("a.npy");
  write_npy(f.str(), std::vector<float>{1, -2, 3, 0.5f, 0, 7}, {2, 3}, dtype::f16);
  const std::string bytes = slurp(f.str());
  ASSERT_EQ(bytes.size(), 128u + 12u);
  EXPECT_EQ(bytes.substr(0, 128), npy_header(dtype::f16, {2, 3}));
  EXPECT_EQ(bytes.substr(128, 4), std::string("\x00\x3c\x00\xc0", 4));
  const npy_array a = read_npy(f.str());
  EXPECT_EQ(a.type, dtype::f16);
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(to_f32(a), (std::vector<float>{1, -2, 3, 0.5f, 0, 7}));
}

TEST(npy, an_empty_array_reads_back_empty) {
  // Found by fuzz_npy: a 0 in the shape copied 0 bytes from a null pointer,
  // reading and converting (UBSan in the CI build).
  for (dtype t : {dtype::f32, dtype::f16, dtype::i8, dtype::i32}) {
    test::temp_file f("empty.npy");
    write_npy(f.str(), std::vector<float>{}, {0, 5}, t);
    const npy_array a = read_npy(f.str());
    EXPECT_EQ(a.shape, (std::vector<uint64_t>{0, 5}));
    EXPECT_EQ(a.elements(), 0u);
    EXPECT_TRUE(a.data.empty());
    EXPECT_TRUE(to_f32(a).empty());
  }
}

TEST(npy, bf16_is_written_as_exactly_widened_f32) {
  test::temp_file f("bf.npy");
  memory_image m;
  const tensor_view v = packed_view(64, 1, 2, dtype::bf16);
  m.write(64, std::vector<uint8_t>{0x80, 0x3f, 0x49, 0x40}); // 1.0, 3.140625
  write_npy(f.str(), m, v);
  const npy_array a = read_npy(f.str());
  EXPECT_EQ(a.type, dtype::f32);
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 0, 0x80, 0x3f, 0, 0, 0x49, 0x40}));
}

TEST(npy, int_arrays_round_trip) {
  test::temp_file f("i.npy");
  write_npy(f.str(), npy_array{dtype::i32, {3}, {1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 5, 0, 0, 0}});
  EXPECT_EQ(to_f32(read_npy(f.str())), (std::vector<float>{1, -1, 5}));
  write_npy(f.str(), npy_array{dtype::i8, {1, 2}, {0x80, 0x7f}});
  EXPECT_EQ(slurp(f.str()).substr(10, 16), "{'descr': '|i1',");
  EXPECT_EQ(to_f32(read_npy(f.str())), (std::vector<float>{-128, 127}));
}

TEST(npy, a_file_fills_a_strided_tensor_converting_its_dtype) {
  test::temp_file f("in.npy");
  write_npy(f.str(), std::vector<float>{1, 2.5f, -3, 4}, {2, 2}, dtype::f32);
  memory_image m;
  const tensor_view v{100, 2, 2, 8, dtype::f16};
  read_npy_into(f.str(), m, v);
  EXPECT_EQ(m.read(100, 12), (std::vector<uint8_t>{0x00, 0x3c, 0x00, 0x41, 0, 0, 0, 0, 0x00, 0xc2,
                                                   0x00, 0x44}));
  read_npy_into(f.str(), m, packed_view(200, 2, 2, dtype::f32)); // same type: the bytes as they are
  EXPECT_EQ(load_f32(m, packed_view(200, 2, 2, dtype::f32)), (std::vector<float>{1, 2.5f, -3, 4}));
  EXPECT_THROW(read_npy_into(f.str(), m, packed_view(200, 1, 4, dtype::f32)), std::runtime_error);
  write_npy(f.str(), std::vector<float>{1, 2, 3}, {3}, dtype::i32);
  read_npy_into(f.str(), m, packed_view(300, 3, 1, dtype::i32)); // 1-D of rows * cols
  EXPECT_EQ(load_f32(m, packed_view(300, 3, 1, dtype::i32)), (std::vector<float>{1, 2, 3}));
  try {
    read_npy_into(f.str(), m, packed_view(0, 2, 2, dtype::i32));
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              f.str() + ": an array of shape (3,) does not fill tensor 0x0 2x2 i32 stride 8");
  }
}

TEST(npy, bad_files_name_the_file_and_the_fault) {
  test::temp_file f("bad.npy");
  const std::string p = f.str();
  EXPECT_EQ(error_of(p), p + ": cannot open for reading: No such file or directory");
  spit(p, "hello");
  EXPECT_EQ(error_of(p), p + ": not a usable .npy file: it does not start with the NumPy magic "
                             "\\x93NUMPY");
  const std::string good = npy_header(dtype::f32, {2, 3}) + std::string(24, '\0');
  spit(p, good.substr(0, 50));
  EXPECT_EQ(error_of(p),
            p + ": not a usable .npy file: the file ends inside the header (40 of 118 header bytes)");
  spit(p, good.substr(0, good.size() - 1));
  EXPECT_EQ(error_of(p), p + ": not a usable .npy file: shape (2, 3) of <f4 needs 24 data bytes, "
                             "the file holds 23 (truncated)");
  std::string f8 = good; // an f64 file needs 8 bytes per element
  f8.replace(f8.find("<f4"), 3, "<f8");
  spit(p, f8);
  EXPECT_EQ(error_of(p), p + ": not a usable .npy file: shape (2, 3) of <f8 needs 48 data bytes, "
                             "the file holds 24 (truncated)");
  std::string c8 = good;
  c8.replace(c8.find("<f4"), 3, "<c8");
  spit(p, c8);
  EXPECT_EQ(error_of(p), p + ": not a usable .npy file: unsupported descr '<c8' (kernbench reads "
                             "<f4, <f2, |i1, <i4, <f8, <i8 and |u1)");
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  spit(p, fortran);
  EXPECT_EQ(error_of(p), p + ": not a usable .npy file: Fortran order (kernbench reads C order only)");
  EXPECT_THROW(write_npy(p, std::vector<float>{1, 2}, {3}, dtype::f32), std::runtime_error);
}

// -- the types kernbench has no dtype for, and converting a file's values ---

/// A file of `descr` (same length as "<f4") holding `values` of type T.
template <class T>
npy_array file_of(const std::string& path, const std::string& descr, std::vector<T> values) {
  std::string h = npy_header(dtype::f32, {1, values.size()});
  h.replace(h.find("<f4"), 3, descr);
  std::string data(values.size() * sizeof(T), '\0');
  std::memcpy(data.data(), values.data(), data.size());
  spit(path, h + data);
  return read_npy(path);
}

TEST(npy, f64_i64_and_u8_files_are_read) {
  test::temp_file f("wide.npy");
  npy_array a = file_of<double>(f.str(), "<f8", {0.5, -2, 1e300});
  EXPECT_EQ(a.extra, npy_extra::f64);
  EXPECT_EQ(a.descr(), "<f8");
  EXPECT_EQ(a.element_bytes(), 8u);
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{1, 3}));
  EXPECT_EQ(to_f32(a), (std::vector<float>{0.5f, -2, std::numeric_limits<float>::infinity()}));
  a = file_of<int64_t>(f.str(), "<i8", {7, -1, int64_t{1} << 40});
  EXPECT_EQ(a.extra, npy_extra::i64);
  EXPECT_EQ(to_f32(a), (std::vector<float>{7, -1, 0x1p40f}));
  a = file_of<uint8_t>(f.str(), "|u1", {0, 200, 255});
  EXPECT_EQ(a.extra, npy_extra::u8);
  EXPECT_EQ(to_f32(a), (std::vector<float>{0, 200, 255}));
  EXPECT_THROW(write_npy(f.str(), a), std::runtime_error); // read only
}

npy_conversion convert_file(const std::string& path, const std::string& descr, double v, dtype t) {
  if (descr == "<f4")
    return convert_npy(file_of<float>(path, descr, {static_cast<float>(v)}), t);
  if (descr == "<f8")
    return convert_npy(file_of<double>(path, descr, {v}), t);
  return convert_npy(file_of<int64_t>(path, descr, {static_cast<int64_t>(v)}), t);
}

TEST(npy_convert, each_lossy_conversion_is_counted_with_its_first_element) {
  test::temp_file f("lossy.npy");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct want {
    std::string descr;
    double value;
    dtype to;
    std::string was, becomes;
  };
  for (const want& w : std::vector<want>{
         {"<f4", 1e5, dtype::f16, "100000", "inf"},           // overflow to inf
         {"<f4", nan, dtype::i8, "nan", "0"},                 // NaN into an integer
         {"<f4", 2.5, dtype::i32, "2.5", "2"},                // a fraction (ties to even)
         {"<f8", 0.1, dtype::f32, "0.1", "0.100000001"},      // f64 rounding to f32
         {"<i8", 0x1p40, dtype::i32, "1099511627776", "2147483647"}, // out of range: saturates
         {"<i8", 0x1p53 + 2, dtype::f32, "9007199254740994", "9.00719925e+15"}, // f32 rounds it
         {"<f8", 1e300, dtype::bf16, "1e+300", "inf"},
         {"<f8", -1e10, dtype::i8, "-10000000000", "-128"},
         {"<f4", std::numeric_limits<double>::infinity(), dtype::i32, "inf", "2147483647"},
       }) {
    const npy_conversion c = convert_file(f.str(), w.descr, w.value, w.to);
    EXPECT_EQ(c.changed, 1u) << w.descr << " " << w.value << " -> " << to_string(w.to);
    EXPECT_EQ(c.first, 0u);
    EXPECT_EQ(c.first_was, w.was);
    EXPECT_EQ(c.first_becomes, w.becomes);
  }
}

TEST(npy_convert, exact_conversions_change_nothing) {
  test::temp_file f("exact.npy");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  npy_conversion c = convert_file(f.str(), "<f8", 0.5, dtype::f16);
  EXPECT_EQ(c.changed, 0u);
  EXPECT_EQ(c.values, std::vector<double>{0.5});
  EXPECT_EQ(c.bytes, (std::vector<uint8_t>{0x00, 0x38})); // f16 0.5
  c = convert_file(f.str(), "<i8", 7, dtype::i8);
  EXPECT_EQ(c.changed, 0u);
  EXPECT_EQ(c.bytes, std::vector<uint8_t>{7});
  c = convert_file(f.str(), "<i8", -2147483648.0, dtype::i32); // the i32 minimum, exactly
  EXPECT_EQ(c.changed, 0u);
  EXPECT_EQ(c.values, std::vector<double>{-2147483648.0});
  c = convert_file(f.str(), "<f4", nan, dtype::f16); // NaN stays NaN in a float
  EXPECT_EQ(c.changed, 0u);
  EXPECT_TRUE(std::isnan(c.values[0]));
  c = convert_file(f.str(), "<f8", 16777217, dtype::i32); // beyond 2^24, still exact
  EXPECT_EQ(c.changed, 0u);
  EXPECT_EQ(c.bytes, (std::vector<uint8_t>{0x01, 0x00, 0x00, 0x01}));
  c = convert_npy(file_of<uint8_t>(f.str(), "|u1", {200, 5}), dtype::i32);
  EXPECT_EQ(c.changed, 0u);
  c = convert_npy(file_of<uint8_t>(f.str(), "|u1", {5, 200}), dtype::i8);
  EXPECT_EQ(c.changed, 1u);
  EXPECT_EQ(c.first, 1u);
  EXPECT_EQ(c.first_becomes, "127");
}

TEST(npy_convert, several_changes_are_counted_and_the_first_named) {
  test::temp_file f("many.npy");
  const npy_conversion c =
    convert_npy(file_of<float>(f.str(), "<f4", {1, 2, 1e5f, 4, -7e4f, 0.5f}), dtype::f16);
  EXPECT_EQ(c.changed, 2u);
  EXPECT_EQ(c.first, 2u);
  EXPECT_EQ(c.first_was, "100000");
  EXPECT_EQ(c.values[4], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(c.values[5], 0.5);
}

} // namespace
} // namespace kb
