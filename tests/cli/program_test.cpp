// Host programs (kernels/program.hpp, docs/adr/0043): launches issued by the
// host node as their dependencies complete, data flowing through memory,
// the whole program verified. The kernels and programs are a test kernel
// library (kernel_libs/program_kernels.cpp).
//
// Times on the default machine (1 GHz; DESIGN §4), derived by hand:
// - the host's link to the M_CPU takes host.link_latency_ns = 1000 ns;
//   M_CPU -> NOC 1 ns, the NOC's 4 ns, NOC -> PE_CPU 1 ns: a launch the
//   host issues at t starts its kernel at t + 1006 ns;
// - a kernel's completion goes back the same way: PE_CPU -> NOC 1 ns, NOC
//   4 ns, NOC -> M_CPU 1 ns, M_CPU -> host 1000 ns: the launch completes
//   at the host 1006 ns after its (last) kernel returned;
// - launch descriptors and completions are 64 B: on the 256 GB/s M_CPU ->
//   NOC link the second of two sent at once leaves xfer(64, 256) = 250 ps
//   after the first;
// - a 1x16 f32 load from the PE's own HBM takes 120.25 ns from its issue to
//   its done notice (tests/kernel/kernel_timing_test.cpp).

#include "tests/cli/cli_support.hpp"

#include "kernels/kernel_library.hpp"
#include "kernels/program.hpp"
#include "runtime/config/topology_loader.hpp"
#include "actors/builtin_kinds.hpp"
#include "runtime/host/program_run.hpp"
#include "runtime/machine/command_table.hpp"
#include "runtime/machine/pipeline_stats.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::run_kernbench;

const std::string lib = KB_TEST_KERNELS_programs;
const std::string topo_file = test::source_dir() + "/config/topology.yaml";

void load_library() {
  static const bool loaded = [] {
    load_kernel_library(lib);
    return true;
  }();
  (void)loaded;
}

program_run_result run(const std::string& program, bool verify = true) {
  load_library();
  kernel_run_options o;
  o.data.verify = verify;
  return run_program(load_topology(topo_file, builtin_kinds().catalog()), find_program(program),
                     kernel_args::for_program(program, find_program(program).args, {}), o);
}

const node_summary& node(const machine_run& r, const std::string& name) {
  for (const node_summary& n : r.result.nodes)
    if (n.name == name)
      return n;
  throw std::runtime_error("no node " + name);
}

uint64_t launch_figure(const machine_run& r, const stat_decl& s, size_t launch) {
  return figure_or_zero(node(r, "host"), s, std::to_string(launch));
}

/// When command `n` of `pe` was issued, or done (its PE_CPU's table row).
enum class at { issue, done };
uint64_t cmd(const machine_run& r, const std::string& pe, at when, size_t n) {
  for (const command_stat& c :
       command_table::rows_of(node(r, "sip0.cube0." + pe + ".pe_cpu").tables))
    if (c.id == n)
      return when == at::issue ? c.issue_ps : c.done_ps;
  throw std::runtime_error(pe + " has no command " + std::to_string(n));
}

constexpr uint64_t path_ps = 1006000; // host -> PE_CPU, and PE_CPU -> host

TEST(Program, TheSecondOfTwoDependentLaunchesStartsOneLaunchPathAfterTheFirstCompletes) {
  const auto r = run("chain_one_pe");
  ASSERT_EQ(r.run.error, "");
  // Launch 0 (scale: load, scale, store = commands 1-3 of PE 0).
  EXPECT_EQ(launch_figure(r.run, program_stats::issue_ps, 0), 0u);
  EXPECT_EQ(cmd(r.run, "pe0", at::issue, 1), path_ps);
  EXPECT_EQ(cmd(r.run, "pe0", at::done, 1), path_ps + 120250);
  const uint64_t end0 = cmd(r.run, "pe0", at::done, 3);
  EXPECT_EQ(launch_figure(r.run, program_stats::done_ps, 0), end0 + path_ps);
  // Launch 1 (plus: commands 4-6) is issued as launch 0's completion
  // reaches the host, and starts one launch path later.
  EXPECT_EQ(launch_figure(r.run, program_stats::issue_ps, 1), end0 + path_ps);
  EXPECT_EQ(launch_figure(r.run, program_stats::decided_by, 1), 1u); // launch 0
  EXPECT_EQ(cmd(r.run, "pe0", at::issue, 4), end0 + 2 * path_ps);
  EXPECT_EQ(cmd(r.run, "pe0", at::done, 4), end0 + 2 * path_ps + 120250);
  EXPECT_EQ(launch_figure(r.run, program_stats::done_ps, 1),
            cmd(r.run, "pe0", at::done, 6) + path_ps);
  // The second kernel read the first one's compute result through memory:
  // z = 2 x + 1 verifies, y too.
  ASSERT_TRUE(r.data.replayed);
  ASSERT_EQ(r.data.verdicts.size(), 2u);
  EXPECT_TRUE(r.data.verdicts[0].ok) << r.data.verdicts[0].describe();
  EXPECT_TRUE(r.data.verdicts[1].ok) << r.data.verdicts[1].describe();
}

TEST(Program, IndependentLaunchesOnDisjointPesOverlapAsOneLaunchWould) {
  const auto r = run("two_queues");
  ASSERT_EQ(r.run.error, "");
  // Both issued at once; the M_CPU sends the second descriptor 250 ps later.
  EXPECT_EQ(launch_figure(r.run, program_stats::issue_ps, 0), 0u);
  EXPECT_EQ(launch_figure(r.run, program_stats::issue_ps, 1), 0u);
  EXPECT_EQ(cmd(r.run, "pe0", at::issue, 1), path_ps);
  EXPECT_EQ(cmd(r.run, "pe1", at::issue, 1), path_ps + 250);
  EXPECT_EQ(cmd(r.run, "pe0", at::done, 1), path_ps + 120250);
  EXPECT_EQ(cmd(r.run, "pe1", at::done, 1), path_ps + 250 + 120250);
  EXPECT_EQ(launch_figure(r.run, program_stats::done_ps, 0),
            cmd(r.run, "pe0", at::done, 2) + path_ps);
  EXPECT_EQ(launch_figure(r.run, program_stats::done_ps, 1),
            cmd(r.run, "pe1", at::done, 2) + path_ps);
  EXPECT_EQ(cmd(r.run, "pe1", at::done, 2),
            cmd(r.run, "pe0", at::done, 2) + 250);
  for (const auto& v : r.data.verdicts)
    EXPECT_TRUE(v.ok) << v.describe();
}

TEST(Program, AQueuesLaunchesRunInOrderEvenOnDisjointPes) {
  const auto r = run("one_queue_two_pes");
  ASSERT_EQ(r.run.error, "");
  const uint64_t done0 = launch_figure(r.run, program_stats::done_ps, 0);
  EXPECT_EQ(done0, cmd(r.run, "pe0", at::done, 2) + path_ps);
  EXPECT_EQ(launch_figure(r.run, program_stats::issue_ps, 1), done0);
  EXPECT_EQ(cmd(r.run, "pe1", at::issue, 1), done0 + path_ps);
  EXPECT_EQ(cmd(r.run, "pe1", at::done, 1), done0 + path_ps + 120250);
}

// Through the command line, as a user runs it.
std::string cli(const std::string& program, const std::string& more = "") {
  return "run --quiet --kernel-lib " + lib + " --program " + program + " " + more;
}

TEST(Program, AWrongMiddleKernelFailsVerifyNamingTheLaunchAndTensor) {
  const auto r = run_kernbench(cli("wrong_middle", "--verify"));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("verdict: FAIL"));
  EXPECT_THAT(r.out, HasSubstr("z was last written by launch 1 (plus on queue main)"));
  EXPECT_THAT(r.out, HasSubstr("w was last written by launch 2 (scale on queue main)"));
  // y, which launch 0 wrote right, passes.
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("y was last written")));
  const auto ok = run_kernbench(cli("chain_one_pe", "--verify"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("verdict: PASS"));
  EXPECT_THAT(ok.out, HasSubstr("critical path   launch 0 (scale) -> launch 1 (plus)"));
}

TEST(Program, InspectingDataAComputeResultWroteIsAClearError) {
  const auto r = run_kernbench(cli("peek_pending"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("kernel peek on sip0.cube0.pe0"));
  EXPECT_THAT(r.err, HasSubstr("the data of a 1x16 f32 tensor loaded by command 4 was read in "
                               "Phase 1; the bytes it loaded hold a compute result (command 3 "
                               "of kernel scale on sip0.cube0.pe0 wrote them)"));
  EXPECT_THAT(r.err, HasSubstr("(launch 1 of program peek_pending)"));
}

TEST(Program, BadProgramsAreRefusedNamingTheProgramAndLaunch) {
  const std::pair<const char*, const char*> cases[] = {
    {"unknown_kernel", "program bad, launch 0 (nope on queue main): --kernel nope: no such "
                       "kernel"},
    {"missing_binding", "program bad, launch 0 (touch on queue main): kernel tensor 'y' (1x16 "
                        "f32) is bound to none of the program's tensors (its tensors: x, y, big)"},
    {"shape", "program bad, launch 0 (touch on queue main): binds kernel tensor 'y' (1x16 f32) "
              "to the program's 'big', which is 2x16 f32"},
    {"pes", "program bad, launch 0 (touch on queue main): PEs 2 to 9, but the machine has 4 "
            "PE(s)"},
    {"event", "program bad: queue main waits on an event that was never recorded (a "
              "default-constructed program_event)"},
    {"queue", "program bad: a launch or event on a queue the program never made"},
    {"freed", "program bad: launch 1 (touch) binds kernel tensor 'x' to 'x', which the program "
              "freed after launch 0 (a tensor used after it was freed)"},
    {"free_twice", "program bad: frees tensor x twice"},
    {"rows_range", "program bad, launch 0 (touch on queue main): binds kernel tensor 'y' to "
                   "rows 1..3 of the program's 'big', which has 2 rows"},
    {"rows_syntax", "program bad, launch 0 (touch on queue main): binds kernel tensor 'y' to "
                    "'big[1:]'; rows are bound as NAME[FIRST:END] (rows_of)"},
  };
  for (const auto& [how, message] : cases) {
    const auto r = run_kernbench(cli("bad", std::string("--arg how=") + how));
    EXPECT_EQ(r.exit_code, 2) << how << "\n" << r.out << r.err;
    EXPECT_THAT(r.err, HasSubstr(message)) << how;
  }
  const auto none = run_kernbench(cli("bad"));
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("program bad: it launches nothing"));
  const auto unknown = run_kernbench("run --quiet --program nope");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("--program nope: no such program (kernbench ships "
                                     "decoder_layer, gemm_chain;"));
  const auto both = run_kernbench("run --quiet --program gemm_chain --kernel gemm");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_THAT(both.err, HasSubstr("one or the other"));
}

TEST(Program, RowsOfATensorBindToALaunchAndAreCheckedAgainstItsRows) {
  // Four cubes of four PEs: halves runs rows 0..1 on sip0.cube0's PEs and
  // rows 2..3 on sip0.cube1's, each in its own cube's HBM ("cubes").
  const std::string machine = " --topology " + test::source_dir() +
                              "/config/scale/2sip_2cube_4pe.yaml";
  const auto r = run_kernbench(cli("halves", "--verify" + machine));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("verdict: PASS"));
  EXPECT_THAT(r.out, HasSubstr("x        4x16 f32 at 0x0 (spread over the HBM of 2 cubes, 2 "
                               "blocks of 2 rows)"));
  // Each half is read and written in its own cube: the two take the same time.
  EXPECT_THAT(r.out, HasSubstr("0  scale            first        2        2          0.000       "
                               "2259.750"));
  EXPECT_THAT(r.out, HasSubstr("1  scale            second       2        2          0.000       "
                               "2259.750"));
  // A load one row past the bound rows is outside them, though inside x.
  const auto past = run_kernbench(cli("past_slice", "--verify" + machine));
  EXPECT_EQ(past.exit_code, 1) << past.out;
  EXPECT_THAT(past.err, HasSubstr("elements [32, 48) of tensor x[0:2] (2x16, 32 elements) are "
                                  "outside it"));
}

/// A run's JSON up to `invocation` (what byte comparisons compare).
std::string results(const std::string& args, const std::string& name) {
  const std::string dir = test::temp_dir("program_" + name);
  const auto r = run_kernbench(args + " --json " + dir + "/r.json");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out << r.err;
  const std::string json = test::slurp(dir + "/r.json");
  return json.substr(0, json.find("\n  \"invocation\": {"));
}

TEST(Program, ResultsAreTheSameWhateverTheThreadsAndProcesses) {
  const std::string args = "run --quiet --program gemm_chain --verify --topology " +
                           test::source_dir() + "/config/scale/2sip_2cube_4pe.yaml";
  const std::string one = results(args + " --threads 1", "t1");
  ASSERT_THAT(one, HasSubstr("\"host\""));
  EXPECT_EQ(results(args + " --threads 2", "t2"), one);
  EXPECT_EQ(results(args + " --threads 4", "t4"), one);
  EXPECT_EQ(results(args + " --procs 2", "p2"), one);
}

TEST(Program, TheTraceDrawsEachLaunchOnTheHost) {
  // two_queues: both launches in flight at once, each on a track of its own.
  const std::string dir = test::temp_dir("program_trace");
  const auto r = run_kernbench(cli("two_queues", "--trace " + dir + "/t.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = test::slurp(dir + "/t.json");
  EXPECT_THAT(json, HasSubstr(R"("name":"process_name","pid":1,"args":{"name":"host"})"));
  EXPECT_THAT(json, HasSubstr(R"({"ph":"B","pid":1,"tid":)"));
  EXPECT_THAT(json, HasSubstr(R"("ts":0.000000,"name":"launch 0")"));
  EXPECT_THAT(json, HasSubstr(R"("ts":0.000000,"name":"launch 1")"));
  EXPECT_THAT(json, HasSubstr(R"("pid":1,"tid":1,"args":{"name":"host/launches"})"));
  // An arrow from each launch's host slice to the kernel it started.
  EXPECT_THAT(json, HasSubstr(R"({"ph":"s","cat":"launch","id":1,"pid":1,"tid":0,"ts":0.000000,"name":"launch 0"})"));
  EXPECT_THAT(json, HasSubstr(R"j("ts":1.006000,"name":"kernel (launch 0)","args":{"launch":0}})j"));
  EXPECT_THAT(json, HasSubstr(R"({"ph":"f","bp":"e","cat":"launch","id":2,)"));
}

TEST(Program, GemmChainRunsAndVerifiesOnTheDefaultMachine) {
  const auto r = run_kernbench("run --program gemm_chain --verify");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("verdict: PASS"));
  EXPECT_THAT(r.out, HasSubstr("program gemm_chain (2 launches on 1 queue(s), 4 PE(s))"));
  // Which command decided the end: launch 1's last kernel returned one
  // return path (1006 ns) before its completion reached the host, resumed
  // by the PE's second command (launch 0's GEMM was its first).
  EXPECT_THAT(r.out, HasSubstr("the program ends at 16508.000 ns; launch 1 ended with "
                               "sip0.cube0.pe3's kernel, which returned at 15502.000 ns when "
                               "cmd 2 (gemm 64x256x256 f32 tiles 64x64x64)'s done notice "
                               "resumed it"));
  const auto l = run_kernbench("list-kernels");
  EXPECT_THAT(l.out, HasSubstr("program gemm_chain (shipped)"));
}

} // namespace
} // namespace kb
