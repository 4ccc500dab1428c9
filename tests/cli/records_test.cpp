// Issue 31 item 3: `run --records FILE` streams every tile's stages while
// the run goes, and `kernbench records convert FILE --csv OUT` makes a table
// of them: one row per stage, whose counts and busy times are the --json's
// per-command stage tallies, the same bytes whatever the threads and
// processes (a split run's come to rank 0 with the results), and the same
// rows as the stages of a full trace stream of the run.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;
using test::slurp;

const std::string k_run = "run --quiet --pes 2 --M 128 --K 256 --N 128 --tile 64 64 64 --repeat 2";

struct row {
  std::string node, lane, stage;
  uint64_t command = 0, tile = 0, start = 0, end = 0, busy = 0, bytes = 0;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

std::vector<row> rows_of(const std::string& csv) {
  std::vector<row> out;
  const auto lines = lines_of(csv);
  for (size_t i = 1; i < lines.size(); ++i) {
    std::istringstream in(lines[i]);
    row r;
    std::string cell;
    std::vector<std::string> cells;
    while (std::getline(in, cell, ','))
      cells.push_back(cell);
    EXPECT_EQ(cells.size(), 9u) << lines[i];
    if (cells.size() != 9)
      continue;
    r.node = cells[0];
    r.lane = cells[1];
    r.stage = cells[2];
    r.command = std::stoull(cells[3]);
    r.tile = std::stoull(cells[4]);
    r.start = std::stoull(cells[5]);
    r.end = std::stoull(cells[6]);
    r.busy = std::stoull(cells[7]);
    r.bytes = std::stoull(cells[8]);
    out.push_back(r);
  }
  return out;
}

/// The JSON's per-command stage tallies summed per stage type: {count, busy}.
std::map<std::string, std::pair<uint64_t, uint64_t>> tallies_of(const std::string& json) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  const std::regex tally(
    R"re("(dma_read|fetch|gemm|math|store|dma_write)": \{\s*"count": ([0-9]+),\s*"busy_ps": ([0-9]+))re");
  for (std::sregex_iterator it(json.begin(), json.end(), tally), end; it != end; ++it) {
    out[(*it)[1]].first += std::stoull((*it)[2]);
    out[(*it)[1]].second += std::stoull((*it)[3]);
  }
  return out;
}

TEST(records, every_stage_of_the_run_is_a_row_matching_the_json_tallies) {
  const std::string dir = test::temp_dir("records_rows");
  const auto run = run_kernbench(k_run + " --json " + dir + "/r.json --records " + dir + "/r.rec");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto conv = run_kernbench("records convert " + dir + "/r.rec --csv " + dir + "/r.csv");
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  const std::string csv = slurp(dir + "/r.csv");
  ASSERT_EQ(csv.rfind("node,lane,stage,command,tile,start_ps,end_ps,busy_ps,bytes\n", 0), 0u)
    << csv.substr(0, 200);
  const auto rows = rows_of(csv);
  // 2 PEs x 2 GEMMs of (128/64)^2 output tiles x 4 K tiles.
  std::map<std::string, std::pair<uint64_t, uint64_t>> got;
  uint64_t last_end = 0;
  for (const row& r : rows) {
    EXPECT_EQ(r.busy, r.end - r.start) << r.node;
    EXPECT_LE(r.start, r.end) << r.node;
    EXPECT_GE(r.end, last_end) << "rows in the order the stages ended";
    last_end = r.end;
    EXPECT_GE(r.command, 1u);
    EXPECT_LE(r.command, 2u);
    got[r.stage].first += 1;
    got[r.stage].second += r.busy;
  }
  const auto want = tallies_of(slurp(dir + "/r.json"));
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(got, want);
  EXPECT_EQ(got["gemm"].first, 2u * 2u * 4u * 4u);
  // A DMA read of a 64x64 f16 tile moves 8 KiB.
  for (const row& r : rows)
    if (r.stage == "dma_read") {
      EXPECT_EQ(r.bytes, 8192u) << r.node;
      EXPECT_EQ(r.lane, "read");
      EXPECT_NE(r.node.find(".pe_dma"), std::string::npos) << r.node;
    }
}

TEST(records, the_table_is_the_same_bytes_whatever_the_threads_and_a_trace_has_the_same_stages) {
  const std::string dir = test::temp_dir("records_threads");
  for (const char* t : {"1", "2"}) {
    const auto run = run_kernbench(k_run + " --threads " + t + " --records " + dir + "/t" + t +
                                   ".rec");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    ASSERT_EQ(run_kernbench("records convert " + dir + "/t" + t + ".rec --csv " + dir + "/t" + t +
                            ".csv").exit_code, 0);
  }
  const std::string one = slurp(dir + "/t1.csv");
  EXPECT_GT(lines_of(one).size(), 100u);
  EXPECT_EQ(one, slurp(dir + "/t2.csv"));
  // Split over processes: the other processes' stages come to rank 0 with
  // the results, and the table is the same bytes.
  const std::string two_sips = " --topology " + test::source_dir() +
                               "/config/scale/2sip_2cube_4pe.yaml --pes all --M 128 --K 256 "
                               "--N 128 --tile 64 64 64 --placement remote-sip --quiet";
  for (const char* procs : {"1", "2", "4"}) {
    const auto run = run_kernbench(std::string("run --procs ") + procs + two_sips + " --records " +
                                   dir + "/p" + procs + ".rec");
    ASSERT_EQ(run.exit_code, 0) << procs << ": " << run.err;
    ASSERT_EQ(run_kernbench("records convert " + dir + "/p" + procs + ".rec --csv " + dir + "/p" +
                            procs + ".csv").exit_code, 0);
  }
  const std::string p1 = slurp(dir + "/p1.csv");
  EXPECT_NE(p1.find("sip1.cube1.pe3.pe_gemm,gemm,gemm,"), std::string::npos);
  EXPECT_EQ(p1, slurp(dir + "/p2.csv"));
  EXPECT_EQ(p1, slurp(dir + "/p4.csv"));
  // A full trace stream (hops included) holds the same stages.
  const auto traced = run_kernbench(k_run + " --trace-stream " + dir + "/all.trace --trace-hops");
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  ASSERT_EQ(run_kernbench("records convert " + dir + "/all.trace --csv " + dir + "/all.csv")
              .exit_code, 0);
  EXPECT_EQ(one, slurp(dir + "/all.csv"));
  // The records are a trace stream of stages only: `trace stats` reads them.
  const auto stats = run_kernbench("trace stats " + dir + "/t1.rec --top 1");
  EXPECT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("pe_gemm/gemm"), std::string::npos) << stats.out;
}

TEST(records, options_that_do_not_apply_are_refused_by_name) {
  const std::string dir = test::temp_dir("records_refused");
  const auto split = run_kernbench(k_run + " --procs 2 --trace-select '*.pe0.*' --trace " + dir +
                                   "/t.capnp --records " + dir + "/r.rec");
  EXPECT_EQ(split.exit_code, 2);
  EXPECT_NE(split.err.find("--records with --trace-select: not in a split run"),
            std::string::npos) << split.err;
  const auto dash = run_kernbench(k_run + " --records -");
  EXPECT_EQ(dash.exit_code, 2);
  EXPECT_NE(dash.err.find("--records -: give a file name"), std::string::npos) << dash.err;
  ASSERT_EQ(run_kernbench(k_run + " --trace " + dir + "/t.json").exit_code, 0);
  const auto json = run_kernbench("records convert " + dir + "/t.json --csv " + dir + "/x.csv");
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_NE(json.err.find("is a Chrome JSON trace"), std::string::npos) << json.err;
  const auto missing = run_kernbench("records convert " + dir + "/none.rec --csv " + dir + "/x.csv");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("none.rec"), std::string::npos) << missing.err;
  const auto no_csv = run_kernbench("records convert " + dir + "/none.rec");
  EXPECT_EQ(no_csv.exit_code, 2);
  EXPECT_NE(no_csv.err.find("--csv"), std::string::npos) << no_csv.err;
}

} // namespace
} // namespace kb
