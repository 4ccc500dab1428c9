// `kernbench run` output is byte-identical whatever the thread count.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace kb {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "kb_determinism_" + name;
}

int run(const std::string& args) {
  std::string cmd = KB_KERNBENCH_EXE;
  cmd.append(" run ").append(args).append(" > /dev/null");
  return std::system(cmd.c_str());
}

void expect_identical_across_threads(const std::string& args, const std::string& tag) {
  std::string json1, trace1, chrome1;
  for (int threads : {1, 2, 4}) {
    const std::string t = std::to_string(threads);
    const std::string j = tmp(tag + t + ".json"), tr = tmp(tag + t + ".trace"),
                      cj = tmp(tag + t + ".trace.json");
    ASSERT_EQ(run(args + " --threads " + t + " --json " + j + " --trace " + tr), 0);
    ASSERT_EQ(run(args + " --threads " + t + " --trace " + cj), 0);
    // How the run was started (`invocation`, the last field: its --threads)
    // is the one part of the JSON that may differ.
    std::string json = slurp(j);
    json = json.substr(0, json.find(",\n  \"invocation\": {"));
    if (threads == 1) {
      json1 = json;
      trace1 = slurp(tr);
      chrome1 = slurp(cj);
      EXPECT_GT(json1.size(), 1000u);
      EXPECT_GT(trace1.size(), 1000u);
      continue;
    }
    EXPECT_EQ(json, json1) << "threads " << threads;
    EXPECT_EQ(slurp(tr), trace1) << "threads " << threads;
    EXPECT_EQ(slurp(cj), chrome1) << "threads " << threads;
  }
}

TEST(PipelineDeterminism, GemmOnFourPesWithRepeats) {
  expect_identical_across_threads(
    "--op gemm --M 512 --K 256 --N 256 --tile 128 128 128 --repeat 2 --pes 4 --trace-hops",
    "gemm");
}

TEST(PipelineDeterminism, MathWithEdgeTiles) {
  expect_identical_across_threads(
    "--op math --op-kind exp --M 300 --N 200 --tile 128 128 --pes 2", "math");
}

} // namespace
} // namespace kb
