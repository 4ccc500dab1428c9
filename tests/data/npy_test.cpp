// .npy files: NumPy's exact 1.0 headers, round trips, clear errors.

#include "runtime/data/npy.hpp"

#include "test_files.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

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
  EXPECT_EQ(error_of(p), p + ": cannot open for reading");
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
  std::string f8 = good;
  f8.replace(f8.find("<f4"), 3, "<f8");
  spit(p, f8);
  EXPECT_EQ(error_of(p), p + ": not a usable .npy file: unsupported descr '<f8' (kernbench reads "
                             "<f4, <f2, |i1, <i4)");
  std::string fortran = good;
  fortran.replace(fortran.find("False"), 5, "True ");
  spit(p, fortran);
  EXPECT_EQ(error_of(p), p + ": not a usable .npy file: Fortran order (kernbench reads C order only)");
  EXPECT_THROW(write_npy(p, std::vector<float>{1, 2}, {3}, dtype::f32), std::runtime_error);
}

} // namespace
} // namespace kb
