// Issue 28: `run --input TENSOR=FILE.npy` refuses a conversion to the
// tensor's dtype that changes a value, naming the option, tensor, file,
// element, value and dtype, unless --input-cast is given; exact conversions
// (also from f64 and int64 files) pass without it. The `copy` test kernel
// (Z = X, any dtype) deploys the file and verifies it arrived as converted.

#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;

const std::string k_copy =
  "run --quiet --pes 1 --verify --kernel-lib " KB_TEST_KERNELS_checks " --kernel copy ";

/// A 1 x n .npy file of `descr` ("<f4", "<f8", "<i8") holding `values`.
template <class T>
std::string npy_file(const std::string& name, const std::string& descr, std::vector<T> values) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1, " +
                     std::to_string(values.size()) + "), }";
  const size_t pad = 64 - (10 + dict.size() + 1) % 64;
  dict += std::string(pad, ' ') + "\n";
  std::string h("\x93NUMPY\x01\x00", 8);
  h.push_back(static_cast<char>(dict.size() & 0xff));
  h.push_back(static_cast<char>(dict.size() >> 8));
  std::string data(values.size() * sizeof(T), '\0');
  std::memcpy(data.data(), values.data(), data.size());
  const std::string path = test::temp_dir("input_cast") + "/" + name + ".npy";
  std::ofstream(path, std::ios::binary) << h << dict << data;
  return path;
}

struct lossy {
  std::string name, descr;
  double value;
  std::string dtype, was, becomes;
};

class input_conversion : public ::testing::TestWithParam<lossy> {};

TEST_P(input_conversion, is_refused_naming_the_element_unless_input_cast) {
  const lossy& c = GetParam();
  std::string path;
  if (c.descr == "<f4")
    path = npy_file<float>(c.name, c.descr, {1, static_cast<float>(c.value), 2, 3});
  else if (c.descr == "<f8")
    path = npy_file<double>(c.name, c.descr, {1, c.value, 2, 3});
  else
    path = npy_file<int64_t>(c.name, c.descr, {1, static_cast<int64_t>(c.value), 2, 3});
  const std::string args = "--arg dtype=" + c.dtype + " --input x=" + path;
  const auto refused = run_kernbench(k_copy + args);
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_EQ(refused.err,
            "kernbench: error: --input x=" + path + ": 1 of 4 values of the file (" + c.descr +
              ") change as " + c.dtype + ", the dtype of tensor x; the first is [0,1] = " + c.was +
              ", which becomes " + c.becomes + ". Give --input-cast to convert anyway (as a "
              "store does: round to nearest even, floats overflow to inf, integers saturate, "
              "NaN -> 0)\n");
  const auto cast = run_kernbench(k_copy + args + " --input-cast");
  EXPECT_EQ(cast.exit_code, 0) << cast.err;
  EXPECT_THAT(cast.out, HasSubstr("verify          z: all 4 elements match (" + c.dtype));
  // A split run converts the same way in every process.
  const auto split = run_kernbench(k_copy + args + " --input-cast --procs 2 --topology " +
                                   std::string(KB_SOURCE_DIR_FOR_TESTS) +
                                   "/config/scale/2sip_2cube_4pe.yaml");
  EXPECT_EQ(split.exit_code, 0) << split.err;
  EXPECT_THAT(split.out, HasSubstr("verify          z: all 4 elements match (" + c.dtype));
}

INSTANTIATE_TEST_SUITE_P(
  issue28, input_conversion,
  ::testing::Values(lossy{"f32_overflow_f16", "<f4", 1e5, "f16", "100000", "inf"},
                    lossy{"nan_i8", "<f4", std::numeric_limits<double>::quiet_NaN(), "i8", "nan", "0"},
                    lossy{"fraction_i32", "<f4", 2.5, "i32", "2.5", "2"},
                    lossy{"f64_rounds_f32", "<f8", 0.1, "f32", "0.1", "0.100000001"},
                    lossy{"i64_beyond_i32", "<i8", 0x1p40, "i32", "1099511627776", "2147483647"}),
  [](const auto& info) { return info.param.name; });

TEST(input_conversion, exact_conversions_need_no_input_cast) {
  auto r = run_kernbench(k_copy + "--arg dtype=f16 --input x=" +
                         npy_file<double>("half", "<f8", {0.5, -2, 1024, 0.25}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("verify          z: all 4 elements match (f16, max |diff| 0)"));
  r = run_kernbench(k_copy + "--arg dtype=i8 --input x=" +
                    npy_file<int64_t>("seven", "<i8", {7, -128, 127, 0}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("verify          z: all 4 elements match (i8, max |diff| 0)"));
  r = run_kernbench(k_copy + "--arg dtype=i32 --input x=" +
                    npy_file<int64_t>("big", "<i8", {16777217, -2147483648LL, 2147483647, 1}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("verify          z: all 4 elements match (i32, max |diff| 0)"));
}

} // namespace
} // namespace kb
