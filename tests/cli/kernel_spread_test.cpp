// Spread, replicated and TCM tensors (issue 29 item 7, docs/adr/0028): the
// host lays a spread tensor's row blocks over the HBM of the grid's cubes
// and a replicated input into each of them, the pointer steps from block to
// block, no access crosses a block or writes a copy, and the results read
// back whole. With them the gemm kernel models the machine the driver's
// `--pes all` does, to the picosecond.

#include "runtime/address.hpp"
#include "runtime/host/kernel_run.hpp"
#include "runtime/host/tensor_placement.hpp"
#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;

/// y = x + 1 row block by row block: program p loads rows [4p, 4p + 4) of
/// x (64 x 16 f32) and stores them plus one into y. `rows` rows per load
/// (4: one block of `spread:4`). x and y are placed as `xp` and `yp`.
kernel_def copy_rows(tensor_place xp, tensor_place yp, uint32_t rows = 4) {
  kernel_def d;
  d.name = "copy_rows";
  d.prepare = [=](const kernel_args&) {
    kernel_launch l;
    l.tensors = {{"x", 64, 16, dtype::f32}, {"y", 64, 16, dtype::f32, true}};
    l.tensors[0].place = xp;
    l.tensors[1].place = yp;
    l.grid = {16, 1, 1};
    l.body = [rows](tl::context& tl, const tensor_table& t) {
      const uint64_t at = uint64_t{tl.program_id()} * 4 * 16;
      if (tl.program_id() * 4 + rows > 64)
        return;
      tl::tensor v = tl.add_scalar(tl.load(t.at("x") + at, {rows, 16}), 1);
      tl.wait(tl.store(t.at("y") + at, v));
    };
    l.reference = [](const tensor_values& in) {
      std::vector<double> y = in.at("x");
      for (double& v : y)
        v += 1;
      return tensor_values{{"y", y}};
    };
    return l;
  };
  return d;
}

kernel_run_result run(const kernel_def& d, size_t pes = 16) {
  kernel_run_options o;
  o.data.verify = true;
  o.data.phase2_workers = 1;
  o.pes = pes;
  return run_kernel(test::config_machine("scale/2sip_2cube_4pe.yaml"), d,
                    kernel_args(d.name, d.args, {}), o);
}

tensor_place spread(uint32_t rows = 0) {
  tensor_place p;
  p.in = tensor_place::memory::spread;
  p.block_rows = rows;
  return p;
}

/// Each load's latency (done - issue) by PE, in PE order.
std::map<std::string, uint64_t> load_latency(const kernel_run_result& r) {
  std::map<std::string, uint64_t> out;
  for (const node_summary& n : r.run.result.nodes)
    if (n.name.ends_with(".pe_cpu"))
      for (const command_stat& c : command_table::rows_of(n.tables))
        if (c.call == static_cast<uint8_t>(command_call::load))
          out[n.name.substr(0, n.name.rfind('.'))] = c.done_ps - c.issue_ps;
  return out;
}

TEST(KernelSpread, BlocksFollowTheGridAndThePointerStepsThroughThem) {
  // docs/adr/0028's example: 16 blocks of 4 rows (256 B), block i in the HBM
  // of PE i's cube, 4 KiB apart.
  const topology_spec topo = test::config_machine("scale/2sip_2cube_4pe.yaml");
  const auto p = place_tensors("k", {{"x", 64, 16, dtype::f32, false, -1, 1, {}, {}, spread(4)}},
                               pe_prefixes(topo), topo);
  ASSERT_EQ(p.tensors.size(), 1u);
  const placed_tensor& x = p.tensors[0];
  ASSERT_TRUE(x.spread);
  EXPECT_EQ(x.spread->block_elements, 64u);
  ASSERT_EQ(x.spread->blocks.size(), 16u);
  for (uint32_t b = 0; b < 16; ++b) {
    const auto g = global_address::decode(x.spread->blocks[b]);
    EXPECT_EQ(g.space, mem_space::hbm);
    EXPECT_EQ(g.sip, b / 8);
    EXPECT_EQ(g.cube, b / 4 % 2);
    EXPECT_EQ(g.offset, b % 4 * 4096u);
  }
  EXPECT_EQ(x.where, "spread over the HBM of 4 cubes, 16 blocks of 4 rows");
  EXPECT_EQ(x.parts.size(), 16u);
  // Element 320 is block 5 (sip0.cube1, second block there), offset 0; 321
  // is 4 B further; `+` keeps counting from there.
  const tl::ptr e320 = x.ptr + 320;
  EXPECT_EQ(e320.address, (global_address{mem_space::hbm, 0, 1, 0, 4096}.encode()));
  EXPECT_EQ((e320 + 1).address, e320.address + 4);
  EXPECT_EQ((e320 + 64).address, (global_address{mem_space::hbm, 0, 1, 0, 8192}.encode()));
  EXPECT_EQ(p.guarded->ranges().size(), 16u);
}

TEST(KernelSpread, ASpreadKernelVerifiesAndEveryCubeReadsItsOwnHbm) {
  const auto r = run(copy_rows(spread(), spread()));
  ASSERT_EQ(r.run.error, "");
  ASSERT_TRUE(r.data.replayed);
  ASSERT_EQ(r.data.verdicts.size(), 1u);
  EXPECT_TRUE(r.data.verdicts[0].ok) << r.data.verdicts[0].describe();
  EXPECT_EQ(r.where.at(0), "spread over the HBM of 4 cubes, 16 blocks of 4 rows");
  // Every cube's four PEs read their own cube's HBM at the same time: the
  // same four latencies in each cube.
  const auto spread_lat = load_latency(r);
  ASSERT_EQ(spread_lat.size(), 16u);
  for (uint32_t pe = 0; pe < 4; ++pe) {
    for (const char* cube : {"sip0.cube1", "sip1.cube0", "sip1.cube1"}) {
      EXPECT_EQ(spread_lat.at(fmt::format("{}.pe{}", cube, pe)),
                spread_lat.at(fmt::format("sip0.cube0.pe{}", pe)))
        << cube << ".pe" << pe;
    }
  }
  // All in sip0.cube0's HBM (the default), the other cubes' loads cross the
  // fabric and the one HBM serves 16 requests: every PE waits longer.
  const auto one = run(copy_rows({}, {}));
  ASSERT_EQ(one.run.error, "");
  EXPECT_TRUE(one.data.verdicts.at(0).ok);
  const auto one_lat = load_latency(one);
  for (const auto& [pe, lat] : spread_lat) {
    if (!pe.starts_with("sip0.cube0")) {
      EXPECT_GT(one_lat.at(pe), lat) << pe;
    }
  }
}

TEST(KernelSpread, AnAccessRunningPastABlockIsAnError) {
  // 8 rows from x + 0: block 0 holds 4 (docs/adr/0028's example).
  auto r = run(copy_rows(spread(4), {}, 8));
  EXPECT_THAT(r.run.error, HasSubstr("kernel copy_rows on sip0.cube0.pe0 (program 0): load of 8x16 f32: "));
  EXPECT_THAT(r.run.error, HasSubstr("runs past the end of block 0 (rows 0..3, in hbm of "
                                     "sip0.cube0) of spread tensor x"));
  // The same for a store into a spread output.
  r = run(copy_rows({}, spread(2)));
  EXPECT_THAT(r.run.error, HasSubstr("store of 4x16 f32: "));
  EXPECT_THAT(r.run.error, HasSubstr("of spread tensor y (a spread tensor's access stays"));
}

/// y = x x w for a replicated w: program p computes rows [4p, 4p + 4) of y.
/// With `write_w`, it also stores into w.
kernel_def times_w(bool write_w) {
  kernel_def d;
  d.name = "times_w";
  d.prepare = [=](const kernel_args&) {
    kernel_launch l;
    l.tensors = {{"x", 64, 16, dtype::f32}, {"w", 16, 16, dtype::f32}, {"y", 64, 16, dtype::f32, true}};
    l.tensors[1].place.in = tensor_place::memory::replicated;
    l.tensors[0].place = l.tensors[2].place = spread(4);
    l.grid = {16, 1, 1};
    l.body = [write_w](tl::context& tl, const tensor_table& t) {
      const uint64_t at = uint64_t{tl.program_id()} * 64;
      tl::tensor w = tl.load(t.at("w"), {16, 16});
      tl.wait(tl.store(t.at("y") + at, tl.dot(tl.load(t.at("x") + at, {4, 16}), w)));
      if (write_w)
        tl.wait(tl.store(t.at("w"), w));
    };
    l.reference = [](const tensor_values& in) {
      const auto& x = in.at("x");
      const auto& w = in.at("w");
      std::vector<double> y(64 * 16, 0);
      for (int i = 0; i < 64; ++i)
        for (int j = 0; j < 16; ++j)
          for (int k = 0; k < 16; ++k)
            y[i * 16 + j] += x[i * 16 + k] * w[k * 16 + j];
      return tensor_values{{"y", y}};
    };
    return l;
  };
  return d;
}

TEST(KernelSpread, EachPeReadsItsOwnCubesCopyOfAReplicatedInput) {
  const auto r = run(times_w(false));
  ASSERT_EQ(r.run.error, "");
  EXPECT_TRUE(r.data.verdicts.at(0).ok) << r.data.verdicts.at(0).describe();
  EXPECT_EQ(r.where.at(1), "replicated in the HBM of 4 cubes");
  // Every cube's PEs see the same latencies: nobody reads another cube.
  const auto lat = load_latency(r);
  for (uint32_t pe = 0; pe < 4; ++pe) {
    EXPECT_EQ(lat.at(fmt::format("sip1.cube1.pe{}", pe)), lat.at(fmt::format("sip0.cube0.pe{}", pe)));
  }
  // Writing a copy would make the copies differ.
  const auto w = run(times_w(true));
  EXPECT_THAT(w.run.error, HasSubstr("store of 16x16 f32: "));
  EXPECT_THAT(w.run.error, HasSubstr("writes the copy in hbm of sip"));
  EXPECT_THAT(w.run.error, HasSubstr("of replicated tensor w: a replicated tensor is read-only"));
}

TEST(KernelSpread, BadSpreadAndReplicatedPlacesAreRefused) {
  tensor_place rep;
  rep.in = tensor_place::memory::replicated;
  EXPECT_THAT([&] { run(copy_rows({}, rep)); },
              ::testing::ThrowsMessage<std::invalid_argument>(
                HasSubstr("kernel copy_rows: tensor y is an output; only an input can be "
                          "replicated")));
  auto c = run_kernbench("run --kernel gemm --place a=spread:0");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_THAT(c.err, HasSubstr("--place a=spread:0: expected hbm,"));
  c = run_kernbench("run --kernel gemm --place c=replicated");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_THAT(c.err, HasSubstr("tensor c is an output; only an input can be replicated"));
}

/// x in sip0.cube0.pe1's TCM; the kernel on pe1 copies it to y through a
/// TCM tensor of its own (which lands after x).
kernel_def from_tcm(uint32_t rows) {
  kernel_def d;
  d.name = "from_tcm";
  d.prepare = [=](const kernel_args&) {
    kernel_launch l;
    l.tensors = {{"x", rows, 16, dtype::f32}, {"y", rows, 16, dtype::f32, true}};
    l.tensors[0].place = {tensor_place::memory::tcm, 0, 0, 1};
    l.grid = {2, 1, 1};
    l.body = [rows](tl::context& tl, const tensor_table& t) {
      if (tl.program_id() != 1)
        return;
      tl::tensor v = tl.load(t.at("x"), {rows, 16});
      // 2621440 (SchedulerReservedTCM, ADR-0031) + the host's 4 KiB of x.
      if (global_address::decode(v.address()).offset != 2621440 + uint64_t{rows} * 64)
        throw tl::kernel_error("the kernel's first tensor is not after the host's");
      tl.wait(tl.store(t.at("y"), v));
    };
    l.reference = [](const tensor_values& in) { return tensor_values{{"y", in.at("x")}}; };
    return l;
  };
  return d;
}

TEST(KernelSpread, ATcmTensorTakesTheStartOfItsPesAllocatableTcm) {
  const auto r = run(from_tcm(64), 2);
  ASSERT_EQ(r.run.error, "");
  EXPECT_TRUE(r.data.verdicts.at(0).ok);
  const auto x = global_address::decode(r.tensors.at(0).second.address);
  EXPECT_EQ(x.space, mem_space::tcm);
  EXPECT_EQ(x.pe, 1u);
  EXPECT_EQ(x.offset, 2621440u);
  EXPECT_EQ(r.where.at(0), "tcm of sip0.cube0.pe1");
  // 1.5 MiB of AllocatableTCM: 24577 rows of 64 B do not fit.
  EXPECT_THAT([] { run(from_tcm(24577), 2); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr(
                "kernel from_tcm: tensor x (1572928 B) does not fit in the AllocatableTCM of "
                "sip0.cube0.pe1: 1572928 B of 1572864 B (the TCM's 4194304 B less the "
                "scheduler's 2621440 B) would be taken")));
  auto c = run_kernbench("run --kernel gemm --place a=tcm:sip0.cube0.pe99");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_THAT(c.err, HasSubstr("tensor a is placed in tcm:sip0.cube0.pe99, a PE the machine does "
                               "not have"));
}

TEST(KernelSpread, SpreadGemmMatchesTheDriversPesAll) {
  // 16 PEs, each a 128 x 256 x 128 GEMM in 64^3 tiles: the driver's --pes
  // all puts each PE's A, B and C in its own cube's HBM; the gemm kernel
  // does the same with A and C spread in rows of 128 and B replicated.
  const std::string dir = test::temp_dir("spread_gemm");
  const std::string topo = "run --quiet --topology " + test::source_dir() +
                           "/config/scale/2sip_2cube_4pe.yaml ";
  const auto d = run_kernbench(topo + "--pes all --M 128 --K 256 --N 128 --tile 64 64 64 --json " +
                               dir + "/d.json");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const auto k = run_kernbench(topo + "--kernel gemm --arg M=2048 --arg K=256 --arg N=128 --arg "
                               "block_m=128 --arg tile=64 --arg out_dtype=f16 --place a=spread "
                               "--place b=replicated --place c=spread --json " + dir + "/k.json");
  ASSERT_EQ(k.exit_code, 0) << k.err;
  const std::string dj = test::slurp(dir + "/d.json"), kj = test::slurp(dir + "/k.json");
  EXPECT_THAT(kj, HasSubstr("\"where\": \"spread over the HBM of 4 cubes, 16 blocks of 128 rows\""));
  EXPECT_THAT(kj, HasSubstr("\"where\": \"replicated in the HBM of 4 cubes\""));
  EXPECT_EQ(test::json_without_program_and_kernel(kj), test::json_without_program_and_kernel(dj));
}

TEST(KernelSpread, ASplitRunSpreadsTheSameWay) {
  const std::string dir = test::temp_dir("spread_split");
  const std::string base = "run --quiet --topology " + test::source_dir() +
                           "/config/scale/2sip_2cube_4pe.yaml --kernel gemm --arg M=512 --arg "
                           "K=64 --arg N=64 --arg block_m=32 --arg tile=32 --place a=spread "
                           "--place b=replicated --place c=spread --verify";
  const auto one = run_kernbench(base + " --oplog " + dir + "/one.log");
  ASSERT_EQ(one.exit_code, 0) << one.out << one.err;
  EXPECT_THAT(one.out, HasSubstr("\nverdict: PASS\n"));
  const auto two = run_kernbench(base + " --procs 2 --oplog " + dir + "/two.log");
  ASSERT_EQ(two.exit_code, 0) << two.out << two.err;
  EXPECT_THAT(two.out, HasSubstr("\nverdict: PASS\n"));
  EXPECT_EQ(test::slurp(dir + "/one.log"), test::slurp(dir + "/two.log"));
}

} // namespace
} // namespace kb
