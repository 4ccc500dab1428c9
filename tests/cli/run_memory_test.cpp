// Issue 31 item 2: `kernbench run --memory` reports the heap each node kind's
// nodes held once built, in words and in the JSON's `memory` (schema 6.1),
// in one process or split; it never changes the results.

#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace kb {
namespace {

using test::run_kernbench;
using test::slurp;
using ::testing::HasSubstr;
using ::testing::Not;

struct kind_row {
  uint64_t nodes = 0, bytes = 0, per_node = 0;
};

/// The JSON's `memory.kinds`, by kind.
std::map<std::string, kind_row> json_kinds(const std::string& json) {
  std::map<std::string, kind_row> out;
  const auto at = json.find("\n  \"memory\": {");
  if (at == std::string::npos)
    return out;
  const std::string m = json.substr(at);
  const std::regex row(
    R"re("kind": "([^"]+)",\s*"nodes": ([0-9]+),\s*"bytes": ([0-9]+),\s*"bytes_per_node": ([0-9]+))re");
  for (auto it = std::sregex_iterator(m.begin(), m.end(), row); it != std::sregex_iterator(); ++it)
    out[(*it)[1].str()] = {std::stoull((*it)[2].str()), std::stoull((*it)[3].str()),
                           std::stoull((*it)[4].str())};
  return out;
}

/// The text report's memory rows: kind -> nodes.
std::map<std::string, uint64_t> printed_kinds(const std::string& out) {
  std::map<std::string, uint64_t> rows;
  const auto at = out.find("\nmemory (heap");
  if (at == std::string::npos)
    return rows;
  std::istringstream in(out.substr(at + 1));
  std::string line;
  std::getline(in, line); // the heading
  std::getline(in, line); // the column names
  const std::regex row(R"(^  (\S(?:.*\S)?) +([0-9]+) +[0-9.]+ (?:B|KiB|MiB) +[0-9.]+ (?:B|KiB|MiB)$)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row))
      break;
    rows[m[1].str()] = std::stoull(m[2].str());
  }
  return rows;
}

/// The document up to `invocation` (what byte comparisons compare).
std::string results_part(const std::string& json) {
  return json.substr(0, json.find("\n  \"invocation\": {"));
}

TEST(run_memory, every_kind_of_the_default_machine_with_its_nodes_in_words_and_json) {
  const std::string dir = test::temp_dir("memory_default");
  const auto r = run_kernbench("run --quiet --memory --M 256 --K 256 --N 256 --json " + dir +
                               "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The default machine: one cube (its HBM controller, M_CPU, NOC, SRAM and
  // crossbar) with 4 PEs of 8 units each: 37 nodes.
  const std::map<std::string, uint64_t> expected{
    {"hbm_ctrl", 1}, {"m_cpu", 1}, {"noc", 1}, {"pe_cpu", 4}, {"pe_dma", 4},
    {"pe_fetch_store", 4}, {"pe_gemm", 4}, {"pe_math", 4}, {"pe_mmu", 4},
    {"pe_scheduler", 4}, {"pe_tcm", 4}, {"sram", 1}, {"xbar", 1}, {"all kinds", 37}};
  EXPECT_EQ(printed_kinds(r.out), expected) << r.out;

  const std::string json = slurp(dir + "/r.json");
  const auto kinds = json_kinds(json);
  ASSERT_EQ(kinds.size(), expected.size() - 1) << json;
  uint64_t nodes = 0, bytes = 0;
  for (const auto& [kind, k] : kinds) {
    EXPECT_EQ(k.nodes, expected.at(kind)) << kind;
    EXPECT_EQ(k.per_node, k.bytes / k.nodes) << kind;
    // A node is at least the engine's node object (over 1 KiB), and none
    // of this machine's holds a megabyte.
    EXPECT_GE(k.per_node, 1024u) << kind;
    EXPECT_LT(k.per_node, 1u << 20) << kind;
    nodes += k.nodes;
    bytes += k.bytes;
  }
  const std::string tail = json.substr(json.find("\n  \"memory\": {"));
  EXPECT_THAT(tail, HasSubstr("\"nodes\": " + std::to_string(nodes) + ",\n    \"bytes\": " +
                              std::to_string(bytes) + "\n  }\n}"));
  // `memory` is the document's last field, after `timings`.
  EXPECT_LT(json.find("\n  \"timings\": {"), json.find("\n  \"memory\": {"));
}

TEST(run_memory, without_the_option_nothing_is_measured_and_the_results_are_the_same) {
  const std::string dir = test::temp_dir("memory_same");
  const auto on = run_kernbench("run --quiet --memory --threads 2 --M 256 --K 256 --N 256 "
                                "--pes 4 --json " + dir + "/on.json");
  const auto off = run_kernbench("run --quiet --threads 2 --M 256 --K 256 --N 256 --pes 4 "
                                 "--json " + dir + "/off.json");
  ASSERT_EQ(on.exit_code, 0) << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_THAT(off.out, Not(HasSubstr("\nmemory (")));
  const std::string a = slurp(dir + "/on.json"), b = slurp(dir + "/off.json");
  EXPECT_THAT(b, Not(HasSubstr("\"memory\"")));
  EXPECT_EQ(results_part(a), results_part(b));
}

TEST(run_memory, a_split_run_reports_every_process_s_nodes) {
  const std::string dir = test::temp_dir("memory_split");
  const std::string machine =
    " --pes all --topology " + test::source_dir() + "/config/scale/2sip_2cube_4pe.yaml";
  const auto one = run_kernbench("run --quiet --memory --json " + dir + "/one.json" + machine);
  const auto two =
    run_kernbench("run --quiet --memory --procs 2 --json " + dir + "/two.json" + machine);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const auto a = json_kinds(slurp(dir + "/one.json")), b = json_kinds(slurp(dir + "/two.json"));
  ASSERT_FALSE(a.empty());
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [kind, k] : a) {
    ASSERT_TRUE(b.count(kind)) << kind;
    EXPECT_EQ(b.at(kind).nodes, k.nodes) << kind;
    // Rank 1's half of the nodes is measured there and reaches rank 0 with
    // its summaries: without it the split run's figure would be about half.
    EXPECT_GT(b.at(kind).bytes * 10, k.bytes * 8) << kind;
    EXPECT_GE(b.at(kind).per_node, 1024u) << kind;
  }
}

} // namespace
} // namespace kb
