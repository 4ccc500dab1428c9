// Issue 33, item 1: every result reproduces itself. A `run --json` file
// carries the machine as resolved (after --set) and how it was started; given
// back as --topology it reruns to the same results byte for byte. `--out DIR`
// keeps a run's outputs together; output paths are checked before the
// machine is built; the CSV row names the build, seed, host and command.

#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

namespace kb {
namespace {

namespace fs = std::filesystem;
using test::run_kernbench;
using test::slurp;
using ::testing::HasSubstr;

/// The results of a run's JSON: without `invocation`, and without the two
/// fields that name how the machine was given (the file and its --set list).
std::string results_of(const std::string& json) {
  std::string s = test::json_results(json);
  s = std::regex_replace(s, std::regex(R"(\n  "topology": "[^"]*",)"), "");
  s = std::regex_replace(s, std::regex(R"(\n  "set": \[[^\]]*\],)"), "");
  return s;
}

TEST(reproduce, a_results_machine_reruns_to_the_same_results_byte_for_byte) {
  const std::string dir = test::temp_dir("reproduce");
  const std::string topo = test::source_dir() + "/config/scale/2sip_2cube_4pe.yaml";
  // A changed key (a bigger MAC array) and a SIP link's latency: both must
  // travel in `machine`, or the rerun differs.
  const std::string sets =
    " --set cube.pe_template.pe_gemm.mac_rows=64 --set cube.components.hbm.bandwidth_gbps=256";
  const auto first = run_kernbench("run --quiet --topology " + topo +
                                   " --pes all --M 256 --K 256 --N 256 --placement remote-sip" +
                                   sets + " --json " + dir + "/a.json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto again = run_kernbench("run --quiet --topology " + dir +
                                   "/a.json --pes all --M 256 --K 256 --N 256 --placement "
                                   "remote-sip --json " + dir + "/b.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const std::string a = slurp(dir + "/a.json"), b = slurp(dir + "/b.json");
  EXPECT_EQ(results_of(a), results_of(b));
  EXPECT_THAT(b, HasSubstr("\"topology\": \"" + dir + "/a.json\""));
  // It did change the machine (the check is not vacuous): without the
  // --set the results differ.
  const auto plain = run_kernbench("run --quiet --topology " + topo +
                                   " --pes all --M 256 --K 256 --N 256 --placement remote-sip "
                                   "--json " + dir + "/c.json");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(results_of(slurp(dir + "/c.json")), results_of(a));
  // How it was started, then where its wall time went (issue 31), last.
  EXPECT_THAT(a, HasSubstr("\"complete\": true,\n  \"stopped_by\": null,\n  \"invocation\": {\n"
                           "    \"command\": [\n      \"kernbench\",\n      \"run\","));
  EXPECT_THAT(a, HasSubstr("\"seed\": 1,\n    \"threads\": 1,\n    \"processes\": 1\n  },\n"
                           "  \"timings\": {\n    \"phases\": [\n"));
}

TEST(reproduce, a_kernel_results_machine_reruns_the_kernel_the_same) {
  const std::string dir = test::temp_dir("reproduce_kernel");
  const std::string args = " --quiet --kernel softmax --pes 2 --seed 7 --verify --set "
                           "cube.pe_template.pe_math.lanes=32 --json ";
  const auto first = run_kernbench("run" + args + dir + "/a.json");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto again = run_kernbench("run --topology " + dir + "/a.json" +
                                   std::regex_replace(args, std::regex(" --set [^ ]+"), "") +
                                   dir + "/b.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(results_of(slurp(dir + "/a.json")), results_of(slurp(dir + "/b.json")));
  EXPECT_THAT(slurp(dir + "/a.json"), HasSubstr("\"seed\": 7,"));
}

TEST(reproduce, a_result_without_a_machine_is_refused_naming_it) {
  const std::string dir = test::temp_dir("reproduce_null");
  std::ofstream(dir + "/r.json") << "{\"schema_version\": \"5.0\", \"machine\": null}\n";
  const auto r = run_kernbench("run --quiet --topology " + dir + "/r.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(dir + "/r.json:1: machine: this kernbench result carries no "
                               "machine to rerun"));
}

TEST(out_dir, keeps_the_results_the_machine_the_summary_and_relative_outputs_together) {
  const std::string dir = test::temp_dir("out_dir");
  const std::string out = dir + "/runs/first"; // made, parents too
  const auto r = run_kernbench("run --M 256 --K 256 --N 256 --out " + out +
                               " --trace t.json --csv r.csv --trace-stream " + dir + "/s.stream");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(out))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"machine.json", "r.csv", "result.json",
                                             "summary.txt", "t.json"}));
  EXPECT_TRUE(fs::exists(dir + "/s.stream")); // an absolute path stays where it was named
  EXPECT_EQ(slurp(out + "/summary.txt"), r.out);
  EXPECT_THAT(r.out, HasSubstr("simulated time: "));
  // machine.json is a topology: it reruns the same machine.
  const auto again = run_kernbench("run --quiet --M 256 --K 256 --N 256 --topology " + out +
                                   "/machine.json --json " + dir + "/again.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(results_of(slurp(dir + "/again.json")), results_of(slurp(out + "/result.json")));
  // A file in the way.
  std::ofstream(dir + "/file") << "x";
  const auto bad = run_kernbench("run --quiet --out " + dir + "/file");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("cannot make the --out folder '" + dir + "/file'"));
}

TEST(output_paths, are_checked_before_the_machine_is_built) {
  const std::string dir = test::temp_dir("out_paths");
  // A run of seconds would be simulated first if the paths were checked at
  // the end; now nothing runs and nothing is printed.
  for (const std::string opt : {"--json", "--csv", "--trace", "--oplog"}) {
    const auto r = run_kernbench("run --quiet --M 4096 --K 4096 --N 4096 --verify " + opt + " " +
                                 dir + "/no/such/x");
    EXPECT_EQ(r.exit_code, 2) << opt; // bad input: known before anything runs
    EXPECT_THAT(r.err, HasSubstr("'" + dir + "/no/such/x': No such file or directory")) << opt;
    EXPECT_EQ(r.out, "") << opt;
  }
  fs::create_directories(dir + "/adir");
  const auto d = run_kernbench("run --quiet --json " + dir + "/adir");
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_THAT(d.err, HasSubstr("cannot write --json file '" + dir + "/adir': it is a directory"));
  EXPECT_EQ(d.out, "");
  std::ofstream(dir + "/f") << "x";
  const auto t = run_kernbench("run --quiet --verify --dump-tensors " + dir + "/f/tensors");
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_THAT(t.err, HasSubstr("cannot write --dump-tensors '" + dir + "/f/tensors'"));
  EXPECT_FALSE(fs::exists(dir + "/adir.tmp")); // the probe leaves nothing
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(csv_row, names_the_build_seed_host_threads_and_command) {
  const std::string dir = test::temp_dir("csv_repro");
  const auto r = run_kernbench("run --quiet --M 256 --K 256 --N 256 --threads 2 --seed 9 --set "
                               "'cube.components.hbm.bandwidth_gbps=256' --csv " + dir + "/r.csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = slurp(dir + "/r.csv");
  EXPECT_THAT(csv, HasSubstr(",events,wall_s,events_per_s,schema_version,complete,"
                             "kernbench_version,git,seed,host,threads,processes,command\n"));
  EXPECT_THAT(csv, HasSubstr(",6.4,true,"));
  EXPECT_THAT(csv, HasSubstr(",9,"));
  EXPECT_THAT(csv, HasSubstr(",2,1,kernbench run --quiet --M 256 --K 256 --N 256 --threads 2 "
                             "--seed 9 --set cube.components.hbm.bandwidth_gbps=256 --csv " + dir +
                             "/r.csv\n"));
}

} // namespace
} // namespace kb
