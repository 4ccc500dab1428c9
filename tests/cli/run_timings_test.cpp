// Issue 31 item 1: a run says where its wall time and memory went, phase by
// phase (`--timings`; the JSON's `timings`, after `invocation`, with the
// phases before the file was written).

#include "tests/cli/cli_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;
using test::slurp;
using ::testing::HasSubstr;
using ::testing::Not;

struct phase_line {
  std::string name;
  double seconds;
};

/// The `timings` section of a run's standard output: each phase line's name
/// and seconds, `total` and `outside the event loop` included.
std::vector<phase_line> timings_of(const std::string& out) {
  std::vector<phase_line> lines;
  const auto at = out.find("\ntimings (wall clock");
  if (at == std::string::npos)
    return lines;
  std::istringstream in(out.substr(at + 1));
  std::string line;
  std::getline(in, line); // the heading
  const std::regex row(R"(^  (\S.*\S) +([0-9]+\.[0-9]{3}) s +[0-9.]+%.*$)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, row))
      break;
    lines.push_back({m[1].str(), std::stod(m[2].str())});
  }
  return lines;
}

std::vector<std::string> names_of(const std::vector<phase_line>& lines) {
  std::vector<std::string> names;
  for (const auto& l : lines)
    names.push_back(l.name);
  return names;
}

/// The JSON's timings phases, in order (their names and seconds).
std::vector<phase_line> json_phases(const std::string& json) {
  std::vector<phase_line> out;
  const auto at = json.find("\n  \"timings\": {");
  if (at == std::string::npos)
    return out;
  const std::string t = json.substr(at);
  const std::regex phase(R"re("phase": "([^"]+)",\s*"wall_s": ([0-9.e+-]+),\s*"rss_bytes": ([0-9]+))re");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), phase); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[1].str(), std::stod((*it)[2].str())});
  return out;
}

double json_number(const std::string& json, const std::string& key) {
  std::smatch m;
  const std::regex re("\"" + key + "\": ([0-9.e+-]+)");
  const auto at = json.find("\n  \"timings\": {");
  const std::string t = at == std::string::npos ? json : json.substr(at);
  return std::regex_search(t, m, re) ? std::stod(m[1].str()) : -1.0;
}

/// The `timings` object's own `wall_s` (the sum of its phases).
double json_total(const std::string& json) {
  std::smatch m;
  const std::regex re("\n    \"wall_s\": ([0-9.e+-]+)");
  return std::regex_search(json, m, re) ? std::stod(m[1].str()) : -1.0;
}

TEST(run_timings, a_driver_run_prints_every_phase_in_order_and_they_add_up) {
  const std::string dir = test::temp_dir("timings_driver");
  const auto r = run_kernbench("run --quiet --timings --M 512 --K 512 --N 512 --pes 4 --json " +
                               dir + "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = timings_of(r.out);
  EXPECT_EQ(names_of(lines),
            (std::vector<std::string>{"read the machine", "place the operands",
                                      "build the routes", "prepare the run",
                                      "add the nodes and links", "plan the shards",
                                      "build the nodes", "event loop", "collect the results",
                                      "summary", "write the outputs", "tear down", "total",
                                      "outside the event loop"}))
    << r.out;
  ASSERT_GE(lines.size(), 3u);
  double sum = 0, loop = 0;
  for (size_t i = 0; i + 2 < lines.size(); ++i) {
    sum += lines[i].seconds;
    if (lines[i].name == "event loop")
      loop = lines[i].seconds;
  }
  const double total = lines[lines.size() - 2].seconds, outside = lines.back().seconds;
  // Each line rounds to 1 ms: 12 of them are within 6 ms of the total.
  EXPECT_NEAR(sum, total, 0.007) << r.out;
  EXPECT_NEAR(total - loop, outside, 0.002) << r.out;

  // The JSON has the phases before it was written, and the same event loop.
  const std::string json = slurp(dir + "/r.json");
  const auto phases = json_phases(json);
  EXPECT_EQ(names_of(phases),
            (std::vector<std::string>{"read the machine", "place the operands",
                                      "build the routes", "prepare the run",
                                      "add the nodes and links", "plan the shards",
                                      "build the nodes", "event loop", "collect the results",
                                      "summary"}));
  double json_sum = 0, json_loop = -1;
  for (const auto& p : phases) {
    json_sum += p.seconds;
    if (p.name == "event loop")
      json_loop = p.seconds;
  }
  EXPECT_NEAR(json_loop, loop, 0.0011);
  // 6 significant digits each.
  EXPECT_NEAR(json_number(json, "event_loop_s"), json_loop, 1e-5 * json_loop + 1e-9);
  EXPECT_NEAR(json_total(json), json_sum, 1e-5 * json_sum * phases.size());
  EXPECT_GT(json_number(json, "peak_rss_bytes"), 1e6);
  // `timings` is the document's last field, after `invocation`.
  EXPECT_LT(json.find("\n  \"invocation\": {"), json.find("\n  \"timings\": {"));
  EXPECT_THAT(json.substr(json.find("\n  \"timings\": {") + 3), Not(HasSubstr("\n  \"")));
  // The peak is at least what any phase held.
  std::smatch m;
  std::string rest = json;
  double most = 0;
  while (std::regex_search(rest, m, std::regex(R"("rss_bytes": ([0-9]+))"))) {
    most = std::max(most, std::stod(m[1].str()));
    rest = m.suffix();
  }
  EXPECT_GE(json_number(json, "peak_rss_bytes"), most);
}

TEST(run_timings, without_the_option_nothing_is_printed_but_the_json_has_them) {
  const std::string dir = test::temp_dir("timings_quiet");
  const auto r = run_kernbench("run --quiet --M 256 --K 256 --N 256 --json " + dir + "/r.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("timings (")));
  EXPECT_EQ(json_phases(slurp(dir + "/r.json")).size(), 10u);
}

TEST(run_timings, two_threads_build_the_routes_beside_the_machine_and_wait_for_them) {
  const auto r = run_kernbench("run --quiet --timings --threads 2 --M 256 --K 256 --N 256");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto names = names_of(timings_of(r.out));
  EXPECT_THAT(names, Not(::testing::Contains("build the routes")));
  EXPECT_THAT(names, ::testing::Contains("wait for the routes")) << r.out;
}

TEST(run_timings, a_split_run_shows_its_wait_for_the_other_processes_before_its_event_loop) {
  const auto r = run_kernbench("run --quiet --timings --procs 2 --pes all --topology " +
                               test::source_dir() + "/config/scale/2sip_2cube_4pe.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto names = names_of(timings_of(r.out));
  const auto wait = std::find(names.begin(), names.end(), "wait for other processes");
  ASSERT_NE(wait, names.end()) << r.out;
  ASSERT_NE(wait + 1, names.end());
  EXPECT_EQ(*(wait + 1), "event loop") << r.out;
  EXPECT_EQ(*(wait - 1), "build the nodes") << r.out;
}

TEST(run_timings, a_kernel_run_times_its_preparation_and_its_replay) {
  const auto r = run_kernbench("run --quiet --timings --kernel softmax --verify");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto names = names_of(timings_of(r.out));
  EXPECT_EQ(names,
            (std::vector<std::string>{"read the machine", "prepare the kernel",
                                      "add the nodes and links", "plan the shards",
                                      "build the nodes", "event loop", "collect the results",
                                      "replay the data", "summary", "write the outputs",
                                      "tear down", "total", "outside the event loop"}))
    << r.out;
}

TEST(run_timings, a_trace_adds_the_merge_of_its_records_and_the_stream_its_end) {
  const std::string dir = test::temp_dir("timings_trace");
  const auto r = run_kernbench("run --quiet --timings --M 256 --K 256 --N 256 --trace " + dir +
                               "/t.json --trace-stream " + dir + "/t.trace");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto names = names_of(timings_of(r.out));
  EXPECT_THAT(names, ::testing::Contains("merge the trace records")) << r.out;
  EXPECT_THAT(names, ::testing::Contains("finish the trace stream")) << r.out;
}

} // namespace
} // namespace kb
