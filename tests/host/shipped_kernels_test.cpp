// Every shipped kernel passes --verify on several shapes, ragged edges
// included, in f16, bf16 and f32 (issue 12).

#include "actors/builtin_kinds.hpp"
#include "runtime/config/impl_registry.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/host/kernel_run.hpp"

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
                             load_impl_registry(src + "/config/components.yaml"),
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
