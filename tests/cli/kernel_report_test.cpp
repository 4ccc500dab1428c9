// Issue 27 item 1: one report for every run. A kernel run gets the driver's
// report from the same code (the built-in driver is one kernel among the
// others): the same 512^3 GEMM as the driver and as `--kernel gemm` with
// the same tiling gives the same JSON; a kernel run's JSON, and every other
// kind of run's, validates against schema/results.schema.json
// (scripts/check_results_schema.py, which must also fail a broken file);
// --trace, --trace-stream and --csv work for kernels.

#include "runtime/report/csv_row.hpp"
#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;
using test::slurp;

TEST(KernelReport, TheDriverAndTheGemmKernelGiveTheSameReport) {
  const std::string dir = test::temp_dir("same_report");
  const auto d = run_kernbench("run --quiet --M 512 --K 512 --N 512 --json " + dir + "/d.json");
  ASSERT_EQ(d.exit_code, 0) << d.err;
  // One program of block_m = 512 on one PE: one composite 512^3 GEMM with
  // 128^3 tiles and an f16 C, the driver's command.
  // --per-command: the detailed report, the driver's (a kernel's default is
  // the author's report, docs/adr/0045).
  const auto k = run_kernbench("run --quiet --kernel gemm --pes 1 --arg M=512 --arg K=512 "
                               "--arg N=512 --arg block_m=512 --arg tile=128 --arg out_dtype=f16 "
                               "--per-command --json " + dir + "/k.json");
  ASSERT_EQ(k.exit_code, 0) << k.err;
  const std::string dj = slurp(dir + "/d.json"), kj = slurp(dir + "/k.json");
  EXPECT_THAT(dj, HasSubstr("\"program\": [\n    \"gemm 512x512x512 f16 tiles 128x128x128\"\n  ]"));
  EXPECT_THAT(kj, HasSubstr("\"program\": [],"));
  EXPECT_THAT(kj, HasSubstr("\"kernel\": {\n    \"name\": \"gemm\""));
  // Per-command latencies, stage records, unit figures, links, summary,
  // kernel time and critical path: byte for byte.
  EXPECT_EQ(test::json_without_program_and_kernel(kj), test::json_without_program_and_kernel(dj));
  EXPECT_THAT(dj, HasSubstr("\"latency_ps\": 136104000"));
  // The summaries print the same lines after their first.
  // (but for the engine's wall time): the kernel's own lines follow.
  const auto after_line1 = [](const std::string& out) {
    return std::regex_replace(out.substr(out.find('\n')), std::regex(R"(\nengine: [^\n]*)"),
                              "\nengine: E");
  };
  EXPECT_EQ(after_line1(k.out.substr(0, k.out.find("\nkernel gemm ("))), after_line1(d.out));
  EXPECT_THAT(k.out, HasSubstr("kernbench run: kernel gemm on 1 PE(s), 1 command(s) each"));
}

/// Runs scripts/check_results_schema.py on `files` (space-separated); its
/// exit status, its output in `out` (logged to `log`).
int check_schema(const std::string& files, const std::string& log, std::string& out) {
  const std::string cmd = "python3 " + test::source_dir() + "/scripts/check_results_schema.py " +
                          files + " > " + log + " 2>&1";
  const int status = std::system(cmd.c_str());
  out = slurp(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Issue 33: schema/results.schema.json is the contract; the checker
// validates a file against it (fields, types, values, key order) and names
// each problem by its JSON path.
TEST(KernelReport, AKernelRunsJsonHasTheDocumentedSchema) {
  const std::string dir = test::temp_dir("kernel_schema");
  const auto r = run_kernbench("run --quiet --kernel gemm_bias_relu --verify --json " + dir +
                               "/k.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string out;
  EXPECT_EQ(check_schema(dir + "/k.json", dir + "/k.log", out), 0) << out;
  EXPECT_EQ(out, "ok\n");
  const std::string json = slurp(dir + "/k.json");
  EXPECT_THAT(json, HasSubstr("\"verdict\": \"PASS\""));
  EXPECT_THAT(json, HasSubstr("\"call\": \"dot\""));
  EXPECT_THAT(json, HasSubstr("\"joined_by\": \"depends\""));
  // A wrong input: a renamed field and a dropped one are named, with where
  // (a problem of every command once), and so are a value the schema does
  // not allow and two keys out of order.
  std::string broken = std::regex_replace(json, std::regex("\"held_by\""), "\"holder\"");
  broken = std::regex_replace(broken, std::regex(R"(\n    "verified": (true|false),)"), "");
  broken = std::regex_replace(broken, std::regex(R"("verdict": "PASS")"), R"("verdict": "pass")");
  broken = std::regex_replace(broken, std::regex(R"(\n  ("topology": "[^"]*",)\n  ("set": \[\],))"),
                              "\n  $2\n  $1");
  std::ofstream(dir + "/broken.json") << broken;
  EXPECT_EQ(check_schema(dir + "/broken.json", dir + "/broken.log", out), 1);
  const std::string at = dir + "/broken.json: ";
  EXPECT_THAT(out, HasSubstr(at + "$.pes[0].commands[0]: missing field 'held_by' (and "));
  EXPECT_THAT(out, HasSubstr(at + "$.pes[0].commands[0]: field(s) ['holder'] not in the schema"));
  EXPECT_THAT(out, HasSubstr(at + "$.kernel: missing field 'verified'\n"));
  EXPECT_THAT(out, HasSubstr(at + "$.kernel.verdict: 'pass' is not one of"));
  EXPECT_THAT(out, HasSubstr(at + "$: key 'topology' comes after 'set'"));
}

// Issue 33: every shape the report takes validates against the shipped
// schema: the driver's GEMM and math, several PEs, two SIPs with remote
// operands, a run split over processes, each shipped kernel, and a kernel
// whose verification failed (exit 3, verdict FAIL).
TEST(KernelReport, EveryKindOfRunWritesJsonTheSchemaAccepts) {
  const std::string dir = test::temp_dir("schema_runs");
  const std::string two_sips =
    " --topology " + test::source_dir() + "/config/scale/2sip_2cube_4pe.yaml --pes all";
  const std::string gemm = "--M 256 --K 256 --N 256";
  const std::vector<std::pair<std::string, std::string>> runs = {
    {"gemm", gemm},
    {"pes4", gemm + " --pes 4"},
    {"math", "--op math --op-kind exp --M 256 --N 256 --tile 128 128"},
    {"remote_sip", gemm + two_sips + " --placement remote-sip"},
    {"procs2", gemm + two_sips + " --procs 2"},
    {"softmax", "--kernel softmax --verify"},
    {"layernorm", "--kernel layernorm --verify"},
    {"eltwise_chain", "--kernel eltwise_chain --verify"},
    {"gemm_kernel", "--kernel gemm --verify --pes 2"},
    {"wrong", "--kernel-lib " KB_TEST_KERNELS_checks " --kernel wrong_softmax --verify"},
  };
  std::string files;
  for (const auto& [name, args] : runs) {
    const auto r = run_kernbench("run --quiet " + args + " --json " + dir + "/" + name + ".json");
    ASSERT_EQ(r.exit_code, name == "wrong" ? 3 : 0) << name << ": " << r.err;
    files += " " + dir + "/" + name + ".json";
  }
  EXPECT_THAT(slurp(dir + "/wrong.json"), HasSubstr("\"verdict\": \"FAIL\""));
  std::string out;
  EXPECT_EQ(check_schema(files, dir + "/check.log", out), 0) << out;
  EXPECT_EQ(out, "ok: " + std::to_string(runs.size()) + " files\n");
}

TEST(KernelReport, AKernelRunWritesItsTraceStreamAndCsvRow) {
  const std::string dir = test::temp_dir("kernel_outputs");
  const std::string base = "run --quiet --kernel gemm_bias_relu --pes 2 --arg programs=2 ";
  auto r = run_kernbench(base + "--trace " + dir + "/t.json --csv " + dir + "/k.csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string trace = slurp(dir + "/t.json");
  // The kernels and their waits are slices on their PE_CPU tracks.
  EXPECT_THAT(trace, HasSubstr("\"name\":\"pe_cpu/kernel\""));
  EXPECT_THAT(trace, HasSubstr("\"name\":\"kernel\""));
  EXPECT_THAT(trace, HasSubstr("\"name\":\"load c1 (blocked)\""));
  EXPECT_THAT(trace, HasSubstr("\"name\":\"wait_all\""));
  std::ifstream csv(dir + "/k.csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  const auto fields = csv_split(row);
  ASSERT_GT(fields.size(), 3u);
  EXPECT_EQ(fields[2], "kernel gemm_bias_relu");
  EXPECT_EQ(fields[3], "2");
  r = run_kernbench(base + "--trace-stream " + dir + "/t.kbts --trace-hops");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_kernbench("trace convert " + dir + "/t.kbts " + dir + "/s.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(slurp(dir + "/s.json"), HasSubstr("\"name\":\"load c1 (blocked)\""));
  EXPECT_THAT(slurp(dir + "/s.json"), HasSubstr("\"cat\":\"msg\""));
}

} // namespace
} // namespace kb
