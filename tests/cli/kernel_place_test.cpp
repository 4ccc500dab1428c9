// Where kernel tensors live (issue 29 item 7): a kernel places each tensor
// in the HBM or shared SRAM of a cube, --place overrides it, scratch tensors
// are allocated but neither initialised nor verified, and bad places are
// refused naming the tensor.

#include "runtime/address.hpp"
#include "runtime/host/kernel_run.hpp"
#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;

/// y = x through a scratch tensor s: x -> s, then s -> y. x is in sip0.cube1's
/// SRAM (the kernel says so), s in sip1.cube0's HBM.
kernel_def through_scratch() {
  kernel_def d;
  d.name = "through_scratch";
  d.prepare = [](const kernel_args&) {
    kernel_launch l;
    l.tensors = {{"x", 4, 16, dtype::f32}, {"s", 4, 16, dtype::f32}, {"y", 4, 16, dtype::f32, true}};
    l.tensors[0].place = {tensor_place::memory::sram, 0, 1};
    l.tensors[1].place = {tensor_place::memory::hbm, 1, 0};
    l.tensors[1].scratch = true;
    l.body = [](tl::context& tl, const tensor_table& t) {
      tl.wait(tl.store(t.at("s"), tl.load(t.at("x"), {4, 16})));
      tl.wait(tl.store(t.at("y"), tl.load(t.at("s"), {4, 16})));
    };
    l.reference = [](const tensor_values& in) { return tensor_values{{"y", in.at("x")}}; };
    return l;
  };
  return d;
}

kernel_run_result run(const kernel_def& d, std::map<std::string, tensor_place> places = {}) {
  kernel_run_options o;
  o.data.verify = true;
  o.data.phase2_workers = 1;
  o.pes = 1;
  o.places = std::move(places);
  return run_kernel(test::config_machine("scale/2sip_2cube_4pe.yaml"), d,
                    kernel_args(d.name, d.args, {}), o);
}

TEST(KernelPlace, TensorsLiveWhereTheKernelSaysAndScratchIsNotVerified) {
  const auto r = run(through_scratch());
  ASSERT_EQ(r.run.error, "");
  ASSERT_EQ(r.tensors.size(), 3u);
  const auto x = global_address::decode(r.tensors[0].second.address);
  EXPECT_EQ(x.space, mem_space::sram);
  EXPECT_EQ(x.sip, 0u);
  EXPECT_EQ(x.cube, 1u);
  const auto s = global_address::decode(r.tensors[1].second.address);
  EXPECT_EQ(s.space, mem_space::hbm);
  EXPECT_EQ(s.sip, 1u);
  EXPECT_EQ(s.cube, 0u);
  EXPECT_EQ(s.offset, 0u); // the first tensor of that memory
  const auto y = global_address::decode(r.tensors[2].second.address);
  EXPECT_EQ(y.space, mem_space::hbm); // the default: the first PE's cube
  EXPECT_EQ(y.cube, 0u);
  ASSERT_TRUE(r.data.replayed);
  ASSERT_EQ(r.data.verdicts.size(), 1u); // y only: s is scratch, x an input
  EXPECT_TRUE(r.data.verdicts[0].ok);
}

TEST(KernelPlace, PlaceOverridesTheKernel) {
  const auto r = run(through_scratch(), {{"x", {tensor_place::memory::hbm, 1, 1}}});
  ASSERT_EQ(r.run.error, "");
  const auto x = global_address::decode(r.tensors[0].second.address);
  EXPECT_EQ(x.space, mem_space::hbm);
  EXPECT_EQ(x.sip, 1u);
  EXPECT_EQ(x.cube, 1u);
  EXPECT_TRUE(r.data.verdicts.at(0).ok);
}

TEST(KernelPlace, BadPlacesAreRefusedNamingTheTensor) {
  EXPECT_THAT([] { run(through_scratch(), {{"z", {}}}); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr(
                "--place z=hbm: kernel through_scratch has no tensor 'z' (its tensors: x, s, y)")));
  EXPECT_THAT([] { run(through_scratch(), {{"x", {tensor_place::memory::sram, 2, 0}}}); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                HasSubstr("kernel through_scratch: tensor x is placed in sram:sip2.cube0, a cube "
                          "the machine does not have")));
  auto c = run_kernbench("run --kernel gemm --place a=dram");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_EQ(c.err, "kernbench: error: --place a=dram: expected hbm, hbm:sipS.cubeC, "
                   "sram:sipS.cubeC, spread, spread:ROWS, cubes, cubes:ROWS, replicated or "
                   "tcm:sipS.cubeC.peP\n");
  c = run_kernbench("run --place a=hbm");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_THAT(c.err, HasSubstr("--place: only with --kernel or --program"));
  // A scratch tensor is no input: --input refuses it like an output.
}

TEST(KernelPlace, CubesPlacesRowBlocksOneCubeEachAndReadsBack) {
  for (const char* text : {"cubes", "cubes:64", "spread", "spread:3"}) {
    const auto p = parse_tensor_place(text);
    ASSERT_TRUE(p) << text;
    EXPECT_EQ(to_string(*p), text);
  }
  EXPECT_EQ(parse_tensor_place("cubes:64")->in, tensor_place::memory::spread_cubes);
  EXPECT_EQ(parse_tensor_place("cubes:64")->block_rows, 64u);
  for (const char* bad : {"cubes:0", "cubes:-1", "cubes:", "cubes:x"})
    EXPECT_FALSE(parse_tensor_place(bad)) << bad;
  // gemm's A over the 4 cubes of 2sip_2cube_4pe (16 PEs): one block of 32
  // rows per cube, where spread (per PE) puts 8-row blocks 4 to a cube.
  const std::string machine = " --topology " + test::source_dir() +
                              "/config/scale/2sip_2cube_4pe.yaml";
  auto r = run_kernbench("run --kernel gemm --arg M=128 --arg K=64 --arg N=64 --arg block_m=8 "
                         "--verify --place a=cubes --place c=cubes" + machine);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("(spread over the HBM of 4 cubes, 4 blocks of 32 rows)"));
  EXPECT_THAT(r.out, HasSubstr("verdict: PASS"));
}

TEST(KernelPlace, TheCommandLinePlacesASplitRunsTensorsTheSame) {
  const std::string dir = test::temp_dir("place_split");
  const std::string base = "run --quiet --topology " + test::source_dir() +
                           "/config/scale/2sip_2cube_4pe.yaml --kernel gemm_pipelined --arg M=96 "
                           "--arg K=64 --arg N=64 --arg block_m=32 --arg block_n=32 --arg "
                           "block_k=32 --place a=sram:sip1.cube1 --place b=hbm:sip0.cube1 --verify";
  const auto one = run_kernbench(base + " --oplog " + dir + "/one.log");
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_THAT(one.out, HasSubstr("(sram of sip1.cube1)"));
  EXPECT_THAT(one.out, HasSubstr("\nverdict: PASS\n"));
  const auto two = run_kernbench(base + " --procs 2 --oplog " + dir + "/two.log");
  ASSERT_EQ(two.exit_code, 0) << two.out << two.err;
  EXPECT_EQ(test::slurp(dir + "/one.log"), test::slurp(dir + "/two.log"));
}

} // namespace
} // namespace kb
