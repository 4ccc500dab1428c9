// Every shipped kernel passes --verify on several shapes, ragged edges
// included, in f16, bf16 and f32 (issue 12).

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/data/npy.hpp"
#include "runtime/host/kernel_run.hpp"

#include "tests/i8_gemm_operands.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

namespace kb {
namespace {

const std::string src = KB_HOST_TEST_SOURCE_DIR;

struct shape_case {
  std::string kernel;
  std::map<std::string, std::string> args; ///< dtype is added per case
};

std::string name_of(const shape_case& c) {
  std::string n = c.kernel;
  for (const auto& [k, v] : c.args)
    n += "_" + k + v;
  return n;
}

class shipped_kernel : public ::testing::TestWithParam<std::tuple<shape_case, std::string>> {};

TEST_P(shipped_kernel, verifies) {
  const auto& [c, type] = GetParam();
  const kernel_def& def = find_kernel(c.kernel);
  auto given = c.args;
  given["dtype"] = type;
  const kernel_args args(def.name, def.args, given);
  kernel_run_options o;
  o.data.verify = true;
  o.pes = 4;
  o.data.phase2_workers = 2;
  const kernel_run_result r =
    run_kernel(load_topology(src + "/config/topology.yaml",
                             builtin_kinds().catalog()),
               def, args, o);
  ASSERT_EQ(r.run.error, "");
  ASSERT_FALSE(r.data.verdicts.empty());
  for (const auto& v : r.data.verdicts) {
    EXPECT_TRUE(v.ok) << v.describe();
    EXPECT_EQ(v.type, parse_dtype(given.count("out_dtype") ? given["out_dtype"] : type).value_or(dtype::f32))
      << "outputs take the kernel's output dtype";
  }
  EXPECT_GT(r.data.op_records, 0u);
  EXPECT_EQ(r.data.phase2.ops, r.data.op_records);
}

TEST(shipped_kernel_i8, gemm_sums_i8_exactly_in_i32_even_beyond_2_to_the_24) {
  // K = 4096 products of values 100..127 (files for A and B): every sum is
  // above 4.1e7 > 2^24, where f32 spacing is 4 or 8. Ragged M and N,
  // several K tiles.
  const uint32_t m = 20, k = 4096, n = 13;
  const std::string dir = ::testing::TempDir();
  test::write_i8_gemm_operands(dir + "/kb_i8_a.npy", dir + "/kb_i8_b.npy", m, k, n);
  const kernel_def& def = find_kernel("gemm");
  kernel_run_options o;
  o.data.verify = true;
  o.pes = 4;
  o.input_files = {{"a", dir + "/kb_i8_a.npy"}, {"b", dir + "/kb_i8_b.npy"}};
  const kernel_run_result r = run_kernel(
    load_topology(src + "/config/topology.yaml", builtin_kinds().catalog()),
    def,
    kernel_args(def.name, def.args,
                {{"M", "20"}, {"K", "4096"}, {"N", "13"}, {"block_m", "8"}, {"tile", "64"},
                 {"dtype", "i8"}, {"out_dtype", "i32"}}),
    o);
  ASSERT_EQ(r.run.error, "");
  ASSERT_EQ(r.data.verdicts.size(), 1u);
  EXPECT_TRUE(r.data.verdicts[0].ok) << r.data.verdicts[0].describe();
  EXPECT_EQ(r.data.verdicts[0].max_abs_error, 0.0);
  EXPECT_GT(r.data.verdicts[0].scale, 16777216.0);
}

const std::vector<shape_case> cases = {
  {"gemm", {{"M", "64"}, {"K", "64"}, {"N", "64"}, {"block_m", "32"}, {"tile", "32"}, {"out_dtype", "f32"}}},
  {"gemm", {{"M", "77"}, {"K", "45"}, {"N", "91"}, {"block_m", "40"}, {"tile", "16"}, {"out_dtype", "f32"}}},
  {"gemm_bias_relu", {{"M", "50"}, {"K", "33"}, {"N", "47"}, {"tile", "16"}, {"out_dtype", "f32"}}},
  {"gemm_bias_relu", {{"M", "50"}, {"K", "33"}, {"N", "47"}, {"tile", "16"}, {"out_dtype", "f32"}, {"mode", "composite"}}},
  {"softmax", {{"rows", "13"}, {"cols", "37"}, {"programs", "3"}}},
  {"softmax", {{"rows", "8"}, {"cols", "256"}, {"masked_every", "0"}}},
  {"layernorm", {{"rows", "9"}, {"cols", "70"}, {"programs", "3"}}},
  {"eltwise_chain", {{"rows", "45"}, {"cols", "33"}, {"block_rows", "8"}}},
};

INSTANTIATE_TEST_SUITE_P(all, shipped_kernel,
                         ::testing::Combine(::testing::ValuesIn(cases),
                                            ::testing::Values("f16", "bf16", "f32")),
                         [](const auto& info) {
                           return name_of(std::get<0>(info.param)) + "_" +
                                  std::get<1>(info.param);
                         });

} // namespace
} // namespace kb
