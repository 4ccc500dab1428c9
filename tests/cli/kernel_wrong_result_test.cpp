// Verification catches a wrong kernel (runtime/host/kernel_run): test-only
// kernels that compute a wrong block are run through run_kernel, and the
// verdict names the first mismatching element predicted by hand.

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/host/kernel_run.hpp"
#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Dense>

namespace kb {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

topology_spec default_topology() {
  const std::string dir = std::string(KB_SOURCE_DIR_FOR_TESTS) + "/config/";
  return load_topology(dir + "topology.yaml", builtin_kinds().catalog());
}

constexpr uint32_t M = 96, K = 32, N = 40, block_m = 32;

/// C (M x N, f32) = A (M x K) x B (K x N), f32 inputs in [1, 2] (so every
/// element of C is at least K = 32: never within tolerance of 0), row
/// blocks of 32 over the grid, as the shipped gemm kernel does, except
/// where `wrong` says.
/// The reference stores the deployed inputs it was given in `seen`.
kernel_def gemm_fixture(std::function<void(uint32_t program, gemm_plan_args&, bool& skip)> wrong,
                        std::shared_ptr<tensor_values> seen = nullptr) {
  kernel_def d;
  d.name = "wrong_gemm";
  d.prepare = [wrong, seen](const kernel_args&) {
    kernel_launch l;
    l.tensors = {{"a", M, K, dtype::f32, false, 1, 2},
                 {"b", K, N, dtype::f32, false, 1, 2},
                 {"c", M, N, dtype::f32, true}};
    l.grid = {M / block_m, 1, 1};
    l.body = [wrong](tl::context& tl, const tensor_table& t) {
      const uint32_t p = tl.program_id();
      gemm_plan_args g;
      g.m = block_m;
      g.k = K;
      g.n = N;
      g.tile_m = g.tile_k = g.tile_n = 32;
      g.in_dtype = dtype::f32;
      g.a_addr = (t.at("a") + uint64_t{p} * block_m * K).address;
      g.b_addr = t.at("b").address;
      g.c_addr = (t.at("c") + uint64_t{p} * block_m * N).address;
      bool skip = false;
      wrong(p, g, skip);
      if (!skip)
        tl.wait(tl.gemm(g));
    };
    l.reference = [seen](const tensor_values& in) {
      if (seen)
        *seen = in;
      using matd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      std::vector<double> out(size_t{M} * N);
      Eigen::Map<matd>(out.data(), M, N) =
        Eigen::Map<const matd>(in.at("a").data(), M, K) *
        Eigen::Map<const matd>(in.at("b").data(), K, N);
      return tensor_values{{"c", std::move(out)}};
    };
    return l;
  };
  return d;
}

kernel_run_result run(const kernel_def& d) {
  kernel_run_options o;
  o.data.verify = true;
  o.data.phase2_workers = 1;
  return run_kernel(default_topology(), d, kernel_args(d.name, d.args, {}), o);
}

TEST(KernelWrongResult, TheFixtureDoneRightPasses) {
  const auto r = run(gemm_fixture([](uint32_t, gemm_plan_args&, bool&) {}));
  ASSERT_EQ(r.run.error, "");
  ASSERT_EQ(r.data.verdicts.size(), 1u);
  EXPECT_TRUE(r.data.ok()) << r.data.verdicts[0].describe();
  EXPECT_EQ(r.data.verdicts[0].elements, uint64_t{M} * N);
}

TEST(KernelWrongResult, ASkippedLastRowBlockIsFoundAtItsFirstElement) {
  // Program 2 (rows 64..95) does nothing: C stays zero there. The first
  // mismatch in row-major order is (64, 0); all 32 x 40 elements differ.
  const auto r = run(gemm_fixture([](uint32_t p, gemm_plan_args&, bool& skip) { skip = p == 2; }));
  ASSERT_EQ(r.run.error, "");
  ASSERT_EQ(r.data.verdicts.size(), 1u);
  const verify_result& v = r.data.verdicts[0];
  EXPECT_FALSE(r.data.ok());
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first.row, 64u);
  EXPECT_EQ(v.first.col, 0u);
  EXPECT_EQ(v.first.got, 0.0);
  EXPECT_GE(v.first.expected, 32.0); // 32 products of numbers in [1, 2]
  EXPECT_LE(v.first.expected, 128.0);
  EXPECT_EQ(v.mismatches, 32u * N);
  EXPECT_THAT(v.describe(), StartsWith("c[64,0] = 0, expected "));
  EXPECT_THAT(v.describe(), HasSubstr("; 1280 of 3840 elements differ"));
}

TEST(KernelWrongResult, AWrongBOffsetInOneBlockIsFoundWhereItFirstMatters) {
  // Program 1 (rows 32..63) reads B one row down (b + N): its rows of C are
  // sum_k a(i,k) b(k+1,j), with B's row 32 read from the zeros after B (the
  // host aligns tensors to 4 KiB). Rows 0..31 and 64..95 are right, so the
  // first mismatch is the first element of rows 32..63, in row-major order,
  // whose wrong value is out of the f32 tolerance of the right one: found
  // here from the deployed inputs (which the reference hands out). The f32
  // tolerance: 1e-5 x |right| + 1e-5 x the largest |right| of all of C.
  auto in = std::make_shared<tensor_values>();
  const auto r = run(gemm_fixture(
    [](uint32_t p, gemm_plan_args& g, bool&) {
      if (p == 1)
        g.b_addr += uint64_t{N} * 4;
    },
    in));
  ASSERT_EQ(r.run.error, "");
  ASSERT_EQ(r.data.verdicts.size(), 1u);
  const auto& a = in->at("a");
  const auto& b = in->at("b");
  auto bk = [&](uint32_t k, uint32_t j) { return k < K ? b[k * N + j] : 0.0; };
  double scale = 0;
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < N; ++j) {
      double right = 0;
      for (uint32_t k = 0; k < K; ++k)
        right += a[i * K + k] * bk(k, j);
      scale = std::max(scale, std::abs(double{static_cast<float>(right)}));
    }
  uint32_t row = 0, col = 0;
  uint64_t differ = 0;
  for (uint32_t i = 32; i < 64; ++i)
    for (uint32_t j = 0; j < N; ++j) {
      double right = 0, wrong = 0;
      for (uint32_t k = 0; k < K; ++k) {
        right += a[i * K + k] * bk(k, j);
        wrong += a[i * K + k] * bk(k + 1, j);
      }
      right = static_cast<float>(right); // the reference as an f32 store holds it
      if (std::abs(wrong - right) > 1e-5 * std::abs(right) + 1e-5 * scale && differ++ == 0) {
        row = i;
        col = j;
      }
    }
  ASSERT_GT(differ, 0u);
  const verify_result& v = r.data.verdicts[0];
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first.row, row);
  EXPECT_EQ(v.first.col, col);
  EXPECT_EQ(v.mismatches, differ);
  EXPECT_THAT(v.describe(),
              StartsWith("c[" + std::to_string(row) + "," + std::to_string(col) + "] = "));
}

} // namespace
} // namespace kb
