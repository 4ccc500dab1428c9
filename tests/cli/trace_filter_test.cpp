// Traces of large runs (issue 32 item 3): --trace-select, --trace-window and
// --trace-kinds keep one cube of the 1,024-PE machine (and the hops touching
// it), only the window asked for, only the kinds asked for; `trace convert`
// with the same filters writes the same bytes; .json.gz is the same JSON
// gzipped; results never change; bad values are refused naming the option.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;
using test::slurp;

const std::string k_scale =
    "run --quiet --topology " + test::source_dir() +
    "/config/scale/4sip_4cube_64pe.yaml --pes all --M 128 --K 128 "
    "--N 128 --placement remote-cube --trace-hops";
const std::string k_small =
    "run --quiet --pes 4 --M 256 --K 384 --N 256 --repeat 2";

/// A gzip file's bytes, decompressed ("" and a failure if it is not one).
std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  EXPECT_NE(f, nullptr) << path;
  if (!f)
    return {};
  std::string out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0)
    out.append(buf, static_cast<size_t>(n));
  EXPECT_EQ(n, 0) << path;
  gzclose(f);
  return out;
}

/// One event of the Chrome JSON (one per line, as the writer puts them).
struct event {
  std::string ph, name;
  int pid = -1;
  long long tid = -1;
  double ts = -1; ///< µs; -1: none (metadata)
};

std::vector<event> events_of(const std::string& json) {
  static const std::regex ph(R"re("ph":"(\w)")re"), pid(R"re("pid":(\d+))re"),
      tid(R"re("tid":(\d+))re"), ts(R"re("ts":([0-9.]+))re"),
      name(R"re("name":"([^"]*)")re"),
      meta_name(R"re("args":\{"name":"([^"]*)")re");
  std::vector<event> out;
  std::istringstream in(json);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, ph))
      continue;
    event e;
    e.ph = m[1];
    if (std::regex_search(line, m, pid))
      e.pid = std::stoi(m[1]);
    if (std::regex_search(line, m, tid))
      e.tid = std::stoll(m[1]);
    if (std::regex_search(line, m, ts))
      e.ts = std::stod(m[1]);
    if (std::regex_search(line, m, e.ph == "M" ? meta_name : name))
      e.name = m[1];
    out.push_back(e);
  }
  return out;
}

bool in_cube(const std::string& name, const std::string& cube) {
  return name == cube || name.rfind(cube + ".", 0) == 0;
}

TEST(trace_filter, one_cube_of_the_1024_pe_machine_and_the_hops_touching_it) {
  const std::string dir = test::temp_dir("one_cube");
  const std::string cube = "sip1.cube2";
  auto r = run_kernbench(k_scale + " --trace-select '" + cube +
                         ".*' --trace-window 2us:6us "
                         "--trace " +
                         dir + "/cube.json --json " + dir + "/traced.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<event> events = events_of(slurp(dir + "/cube.json"));
  ASSERT_GT(events.size(), 1000u);
  std::map<int, std::string> process;             // pid -> name
  std::map<std::pair<int, long long>, int> depth; // open slices per track
  std::map<int, std::set<std::string>> phases;    // what each process holds
  for (const event& e : events) {
    if (e.ph == "M" && !e.name.empty() &&
        e.name.find('/') == std::string::npos) // process_name (sort index: no name)
      process[e.pid] = e.name;
    if (e.ph == "M")
      continue;
    // Every record, and every flow's end (a hop's arrival), in the window.
    EXPECT_GE(e.ts, 2.0) << e.ph << " " << e.name;
    EXPECT_LE(e.ts, 6.0) << e.ph << " " << e.name;
    const bool send = e.ph == "X" && e.name.rfind("send ", 0) == 0;
    const bool receipt = e.ph == "X" && e.name.find(" from ") != std::string::npos;
    phases[e.pid].insert(send ? "send" : receipt ? "receipt" : e.ph);
    if (send) {
      // Only a node outside the cube sends outside its slices, into it.
      EXPECT_FALSE(in_cube(process[e.pid], cube)) << process[e.pid] << " " << e.name;
      const std::string to = e.name.substr(e.name.find(" to ") + 4);
      EXPECT_TRUE(in_cube(to, cube)) << process[e.pid] << " " << e.name;
    }
    int& d = depth[{e.pid, e.tid}];
    d += e.ph == "B" ? 1 : e.ph == "E" ? -1 : 0;
    EXPECT_GE(d, 0) << "a slice ends that did not begin in the window";
  }
  size_t outside = 0;
  for (const auto& [pid, name] : process) {
    if (in_cube(name, cube))
      continue;
    // Another node's process holds only its sends into the cube (and the
    // flows they start, and its links' bytes in flight), and its receipts of
    // messages from the cube (and the flows they end): the links touching
    // the cube.
    ++outside;
    EXPECT_TRUE(phases[pid].count("send") || phases[pid].count("receipt")) << name;
    for (const std::string& ph : phases[pid])
      EXPECT_TRUE(ph == "send" || ph == "receipt" || ph == "s" || ph == "t" || ph == "C")
          << name << " holds " << ph;
  }
  EXPECT_GT(process.size() - outside, 20u); // the cube's nodes and PEs
  EXPECT_GT(outside, 0u); // B lives in the neighbouring cube's HBM
  // Results are the same bytes untraced.
  r = run_kernbench(k_scale + " --json " + dir + "/untraced.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::json_results(slurp(dir + "/traced.json")),
            test::json_results(slurp(dir + "/untraced.json")));
}

TEST(trace_filter, convert_with_the_same_filters_writes_the_filtered_run) {
  const std::string dir = test::temp_dir("convert_filters");
  auto r = run_kernbench(k_small + " --trace-hops --trace-stream " + dir +
                         "/full.trace --json " + dir + "/full.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> filters = {
      "--trace-select 'sip0.cube0.pe1.*'",
      "--trace-select '*.pe0.*,*.pe3.pe_gemm' --trace-select '*.xbar'",
      "--trace-window 1500ns:4.5us",
      "--trace-window :3us --trace-kinds stages",
      "--trace-window 2us: --trace-kinds hops,events --trace-select "
      "'sip0.cube0.pe2.*'",
      "--trace-kinds events"};
  for (const std::string& f : filters) {
    SCOPED_TRACE(f);
    // --trace-hops adds hops to a --trace-kinds list: only without one here.
    const std::string hops =
        f.find("--trace-kinds") == std::string::npos ? " --trace-hops" : "";
    r = run_kernbench(k_small + hops + " " + f + " --trace " + dir +
                      "/run.json --json " + dir + "/run_result.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run_kernbench("trace convert " + dir + "/full.trace " + dir +
                      "/conv.json " + f);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string run = slurp(dir + "/run.json");
    EXPECT_GT(run.size(), 500u);
    EXPECT_LT(run.size(), 2 * slurp(dir + "/full.trace").size() + 100000);
    EXPECT_TRUE(slurp(dir + "/conv.json") == run); // (not printed: megabytes)
    EXPECT_EQ(test::json_results(slurp(dir + "/run_result.json")),
              test::json_results(slurp(dir + "/full.json")));
  }
}

TEST(trace_filter, a_split_run_writes_the_same_filtered_trace) {
  // The other process filters its nodes' records as rank 0 would.
  const std::string dir = test::temp_dir("split_filters");
  for (const std::string procs : {"1", "2"}) {
    const auto r =
        run_kernbench("run --quiet --topology " + test::source_dir() +
                      "/config/scale/2sip_2cube_4pe.yaml "
                      "--pes all --M 256 --K 256 --N 256 --placement "
                      "remote-sip --trace-hops --trace-select "
                      "'sip1.cube0.*' --trace-window 1us:4us --procs " +
                      procs + " --trace " + dir + "/p" + procs + ".json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const std::string one = slurp(dir + "/p1.json");
  EXPECT_GT(one.size(), 5000u);
  EXPECT_TRUE(slurp(dir + "/p2.json") == one);
  EXPECT_NE(one.find(R"("name":"sip0.cube0"})"),
            std::string::npos); // hops from SIP 0
}

TEST(trace_filter, kinds_keep_only_their_records) {
  const std::string dir = test::temp_dir("kinds");
  const std::pair<std::string, std::set<std::string>> cases[] = {
      {"stages", {"B", "E", "X"}},          {"events", {"i"}},
      {"hops", {"X", "s", "t"}},           {"stages,counters", {"B", "E", "X", "C"}},
      {"hops,counters", {"X", "s", "t", "C"}}};
  for (const auto& [kinds, phs] : cases) {
    SCOPED_TRACE(kinds);
    const auto r = run_kernbench(k_small + " --trace-kinds " + kinds +
                                 " --trace " + dir + "/k.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> seen;
    for (const event& e : events_of(slurp(dir + "/k.json")))
      if (e.ph != "M") {
        seen.insert(e.ph);
        // X: the memory servers' spans (stages); receipts and sends (hops:
        // the senders' stages are left out, so they send outside slices).
        const bool message = e.name.find(" from ") != std::string::npos ||
                             e.name.rfind("send ", 0) == 0;
        EXPECT_EQ(message, kinds.rfind("hops", 0) == 0 && e.ph == "X") << e.name;
      }
    EXPECT_EQ(seen, phs);
  }
}

TEST(trace_filter, a_gzipped_trace_is_the_json_gzipped) {
  const std::string dir = test::temp_dir("gzip");
  for (const std::string f :
       {"", " --trace-select '*.pe1.*' --trace-window 1us:5us"}) {
    SCOPED_TRACE(f);
    auto r = run_kernbench(k_small + " --trace-hops" + f + " --trace " + dir +
                           "/t.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run_kernbench(k_small + " --trace-hops" + f + " --trace " + dir +
                      "/t.json.gz --trace-stream " + dir + "/t.trace");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string json = slurp(dir + "/t.json");
    EXPECT_GT(json.size(), 10000u);
    EXPECT_TRUE(gunzip(dir + "/t.json.gz") == json);
    EXPECT_LT(slurp(dir + "/t.json.gz").size() * 5, json.size());
    // trace convert to .gz: the same gzip bytes (no time in the header).
    r = run_kernbench("trace convert " + dir + "/t.trace " + dir +
                      "/c.json.gz");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(slurp(dir + "/c.json.gz") == slurp(dir + "/t.json.gz"));
  }
}

TEST(trace_filter, bad_values_are_refused_naming_the_option) {
  const std::string dir = test::temp_dir("bad_filters");
  const std::string trace = " --trace " + dir + "/t.json";
  const std::pair<std::string, std::string> cases[] = {
      {"--trace-select ''" + trace, "--trace-select '': an empty pattern"},
      {"--trace-select 'a,,b'" + trace,
       "--trace-select 'a,,b': an empty pattern"},
      {"--trace-window 5us:2us" + trace,
       "--trace-window '5us:2us': T0 is after T1"},
      {"--trace-window 1:2us" + trace, "--trace-window 1: no unit"},
      {"--trace-window 2us" + trace, "--trace-window '2us': expected T0:T1"},
      {"--trace-window abc:2us" + trace, "--trace-window abc: not a number"},
      {"--trace-window ''" + trace, "--trace-window '': expected T0:T1"},
      {"--trace-kinds counters" + trace,
       "--trace-kinds 'counters': counters are drawn from the memory servers' spans (stages) "
       "and the hops (hops): give one of them too"},
      {"--trace-kinds events,counters" + trace, "give one of them too"},
      {"--trace-kinds stages,banana" + trace,
       "unknown kind 'banana' (known: stages, events, hops, counters)"},
      {"--trace-kinds ''" + trace, "--trace-kinds '': an empty kind"},
      {"--trace-window 1us:2us", "--trace-window: there is no trace to filter"},
      {"--trace-select '*.pe0.*' --json " + dir + "/r.json",
       "--trace-select: there is no trace"},
      {"--trace-kinds hops", "--trace-kinds: there is no trace to filter"},
  };
  for (const auto& [opts, says] : cases) {
    SCOPED_TRACE(opts);
    const auto r = run_kernbench(k_small + " " + opts);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
  ASSERT_EQ(
      run_kernbench(k_small + " --trace-stream " + dir + "/s.trace").exit_code,
      0);
  const auto r = run_kernbench("trace convert " + dir + "/s.trace " + dir +
                               "/c.json --trace-window 3us:1us");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--trace-window '3us:1us': T0 is after T1"),
            std::string::npos)
      << r.err;
}

} // namespace
} // namespace kb

namespace kb {
namespace {

// `trace stats` of a windowed trace: the span runs from its first record
// (about T0) to its last, and utilisation is of that span, not of 0..T1.
TEST(trace_filter, stats_of_a_window_count_its_span_from_its_first_record) {
  const std::string dir = test::temp_dir("stats_window");
  ASSERT_EQ(run_kernbench(k_small + " --trace-select 'sip0.cube0.pe1.*' --trace-window 20us:40us "
                          "--trace-stream " + dir + "/w.trace").exit_code, 0);
  const auto st = run_kernbench("trace stats " + dir + "/w.trace --top 1");
  ASSERT_EQ(st.exit_code, 0) << st.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
    st.out, m, std::regex(R"(simulated span ([0-9]+)\.([0-9]{3}) ns \(from ([0-9]+)\.[0-9]{3} to ([0-9]+)\.[0-9]{3} ns\))")))
    << st.out;
  const double span_ns = std::stod(m[1].str() + "." + m[2].str());
  EXPECT_GE(std::stoull(m[3]), 20000u);
  EXPECT_LE(std::stoull(m[4]), 40000u);
  EXPECT_LE(span_ns, 20000.0);
  // The DMA read lane's utilisation is its busy time over that span.
  ASSERT_TRUE(std::regex_search(
    st.out, m, std::regex(R"(sip0\.cube0\.pe1\.pe_dma/read +[0-9]+ +([0-9.]+) +([0-9.]+)%)")))
    << st.out;
  EXPECT_NEAR(std::stod(m[2]), 100.0 * std::stod(m[1]) / span_ns, 0.06) << st.out;
  // A whole trace starts at 0 and says no more than its span.
  ASSERT_EQ(run_kernbench(k_small + " --trace-hops --trace-stream " + dir + "/all.trace").exit_code,
            0);
  const auto all = run_kernbench("trace stats " + dir + "/all.trace --top 1");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_TRUE(std::regex_search(all.out, std::regex(R"(simulated span [0-9.]+ ns\n)"))) << all.out;
}

} // namespace
} // namespace kb
