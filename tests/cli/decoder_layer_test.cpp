// The shipped decoder_layer program (kernels/decoder_layer.cpp): seven
// dependent launches whose kernels read what the previous ones computed,
// verified stage by stage against the f64 reference on one PE and on
// several, the same whatever the threads and processes, and refusing the
// shapes its kernels cannot run, naming the program.

#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;

const std::string small = "run --program decoder_layer --arg seq=64 --arg d_model=128 "
                          "--arg heads=2 --arg ffn=256 ";

TEST(DecoderLayer, VerifiesEveryStageOnOnePeAndOnFour) {
  for (const std::string pes : {"1", "4"}) {
    const auto r = run_kernbench(small + "--verify --pes " + pes);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_THAT(r.out, HasSubstr("program decoder_layer (7 launches on 1 queue(s), " + pes +
                                 " PE(s))"));
    EXPECT_THAT(r.out, HasSubstr("verdict: PASS"));
    for (const char* t : {"xn", "qkv", "attn", "h1", "h1n", "m", "y"})
      EXPECT_THAT(r.out, HasSubstr(std::string("verify          ") + t + ": all")) << t;
  }
}

TEST(DecoderLayer, VerifiesInBf16WithReluAndWithoutTheCausalMask) {
  const auto r = run_kernbench("run --program decoder_layer --arg seq=48 --arg d_model=128 "
                               "--arg heads=1 --arg ffn=160 --verify --arg dtype=bf16 "
                               "--arg activation=relu --arg causal=0 --arg block=32");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("verdict: PASS"));
}

std::string results(const std::string& args, const std::string& name) {
  const std::string dir = test::temp_dir("decoder_" + name);
  const auto r = run_kernbench(args + " --json " + dir + "/r.json");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string json = test::slurp(dir + "/r.json");
  return json.substr(0, json.find("\n  \"invocation\": {"));
}

TEST(DecoderLayer, SplitsItsRowsOverTheCubesAndIsTheSameWhateverTheThreadsAndProcesses) {
  // Four cubes of four PEs and seq 256: each cube takes 64 rows (one GEMM
  // block) on its own queue, its activations' rows in its HBM, the weights
  // copied into each; attention on cube k waits for the QKV of cubes < k.
  const std::string args = "run --program decoder_layer --arg seq=256 --arg d_model=128 "
                           "--arg heads=2 --arg ffn=256 --verify --topology " +
                           test::source_dir() + "/config/scale/2sip_2cube_4pe.yaml";
  const auto r = run_kernbench(args + " --per-command"); // every launch's line
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("program decoder_layer (28 launches on 4 queue(s), 16 PE(s))"));
  EXPECT_THAT(r.out, HasSubstr("tensor x        256x128 f16 at 0x0 (spread over the HBM of 4 "
                               "cubes, 4 blocks of 64 rows)"));
  EXPECT_THAT(r.out, HasSubstr("(replicated in the HBM of 4 cubes)"));
  EXPECT_THAT(r.out, HasSubstr("flash_attention  cube3 "));
  EXPECT_THAT(r.out, HasSubstr("verdict: PASS"));
  // Cube k's launches: 2k, 2k + 1 (LayerNorm, QKV), then 8 + 5k onwards.
  // Causal, cube 1's attention (launch 13) waits for cube 0's QKV (1) and
  // its own (3); not causal, for every cube's (1, 3, 5, 7).
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\n +13  flash_attention  cube1 .* 1,3\n"));
  const auto all_keys = run_kernbench(args + " --arg causal=0 --per-command");
  ASSERT_EQ(all_keys.exit_code, 0) << all_keys.out << all_keys.err;
  EXPECT_THAT(all_keys.out,
              ::testing::ContainsRegex("\n +13  flash_attention  cube1 .* 1,3,5,7\n"));
  EXPECT_THAT(all_keys.out, HasSubstr("verdict: PASS"));
  // By default the table lists the critical launches, then the longest: 8.
  const auto brief = run_kernbench(args + " --arg causal=0");
  ASSERT_EQ(brief.exit_code, 0) << brief.out << brief.err;
  EXPECT_THAT(brief.out, HasSubstr("\n  (20 more launches, neither critical nor the longest: "
                                   "--per-command, --json)\n"));
  // and no command's own line (the author's report, ADR-0045).
  EXPECT_THAT(brief.out, ::testing::Not(::testing::ContainsRegex("\n  sip[0-9a-z.]+ +cmd [0-9]")));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("\n  sip[0-9a-z.]+ +cmd [0-9]"));
  const std::string one = results(args + " --quiet --threads 1", "t1");
  ASSERT_THAT(one, HasSubstr("\"flash_attention\""));
  EXPECT_EQ(results(args + " --quiet --threads 2", "t2"), one);
  EXPECT_EQ(results(args + " --quiet --procs 2", "p2"), one);
}

TEST(DecoderLayer, ShapesItsKernelsCannotRunAreRefusedNamingTheProgram) {
  auto r = run_kernbench("run --program decoder_layer --arg d_model=256 --arg heads=3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--arg d_model=256 heads=3: program decoder_layer needs "
                               "d_model / heads to be 64 or 128"));
  r = run_kernbench("run --program decoder_layer --arg ffn=0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("program decoder_layer needs seq, d_model, heads, ffn and block "
                               "above 0"));
  r = run_kernbench("run --program decoder_layer --arg dtype=f32");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("program decoder_layer takes f16 or bf16 for dtype"));
}

} // namespace
} // namespace kb
