// Issue 32 item 1: every flow drawn. scripts/check_trace.py checks a trace
// as Perfetto's JSON importer reads it (every B has its E on its track,
// slices on a track nest, every flow start and end lies in a slice open on
// its track, every pid and track named, counters in time order). Here: the
// traces of a 1-PE, a 64-PE, a 2-SIP remote-cube and a kernel run, with and
// without hops, and a filtered one, pass it; flows follow a read and a tile
// token through the machine; and the checker fails each
// kind of broken trace, naming the check.

#include "tests/cli/cli_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;
using test::slurp;

struct check_result {
  int exit_code = -1;
  std::string out, err;
};

check_result check_trace(const std::string& trace, const std::string& dir,
                         const std::string& opts = "") {
  const std::string cmd = "/usr/bin/python3 " + test::source_dir() + "/scripts/check_trace.py " +
                          opts + " " + trace + " >" + dir + "/check.out 2>" + dir + "/check.err";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir + "/check.out"),
          slurp(dir + "/check.err")};
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(trace_check, the_traces_of_runs_with_and_without_hops_are_drawn_whole) {
  const std::string dir = test::temp_dir("trace_check");
  const std::string size = " --M 256 --K 256 --N 256";
  const std::pair<std::string, std::string> runs[] = {
    {"one_pe", "run --quiet" + size},
    {"cube_64pe", "run --quiet --topology " + test::source_dir() + "/config/scale/1sip_4cube_64pe.yaml --pes 64" + size},
    {"two_sips_remote_cube",
     "run --quiet --topology " + test::source_dir() +
       "/config/scale/2sip_2cube_4pe.yaml --pes all --placement remote-cube" +
       size},
    {"channels", "run --quiet --pes all --set cube.hbm.impl=hbm_ctrl_channels_v1 "
                 "--set cube.hbm.channels=4" + size},
    {"softmax_kernel", "run --quiet --kernel softmax"},
    {"gemm_chain_program", "run --quiet --program gemm_chain"},
  };
  for (const auto& [name, args] : runs)
    for (const std::string hops : {"", " --trace-hops"}) {
      SCOPED_TRACE(name + hops);
      const std::string trace = dir + "/" + name + (hops.empty() ? "" : "_hops") + ".json";
      const auto r = run_kernbench(args + hops + " --trace " + trace);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const auto c = check_trace(trace, dir);
      EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
      const std::string json = slurp(trace);
      // A program draws an arrow from each launch's host slice to each of
      // its kernels (gemm_chain: 2 launches on 4 PEs), hops or not.
      const size_t launch_flows = name == "gemm_chain_program" ? 8 : 0;
      EXPECT_EQ(count(json, "\"ph\":\"s\",\"cat\":\"launch\""), launch_flows);
      EXPECT_EQ(count(json, "\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"launch\""), launch_flows);
      if (hops.empty()) {
        EXPECT_EQ(count(json, "\"ph\":\"s\""), launch_flows);
        continue;
      }
      // Each hop an arrow bound at both ends by the writer's own slices (no
      // node sends outside one in a whole trace): a step at each receipt,
      // of fewer flows than hops (a request and its reply are one, a tile
      // token's trip through the units one).
      const size_t starts = count(json, "\"ph\":\"s\""), steps = count(json, "\"ph\":\"t\"");
      EXPECT_GT(starts, 10u);
      EXPECT_GE(steps, count(json, " from ")) << "a step at each receipt";
      EXPECT_LT(starts, count(json, " from "));
      EXPECT_EQ(count(json, "\"ph\":\"f\""), launch_flows) << "hops end in steps; launches in f";
      EXPECT_EQ(count(json, "\"name\":\"send "), 0u);
    }
  // The memory servers' spans are there without hops too: one per request
  // (per channel it touches).
  const std::string one = slurp(dir + "/one_pe.json");
  EXPECT_GT(count(one, "/serve\"}"), 0u);
  EXPECT_GT(count(slurp(dir + "/channels.json"), "/serve 3\"}"), 0u);
}

TEST(trace_check, a_read_and_its_data_are_one_flow_and_a_tile_token_another) {
  const std::string dir = test::temp_dir("trace_chains");
  const auto r = run_kernbench("run --quiet --M 256 --K 256 --N 256 --trace-hops --trace " + dir +
                               "/t.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = slurp(dir + "/t.json");
  // The tracks by (pid, tid), and every flow event of flow 1..n in order.
  std::map<std::pair<std::string, std::string>, std::string> track;
  const std::regex name(R"re("thread_name","pid":(\d+),"tid":(\d+),"args":\{"name":"([^"]+)")re");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), name); it != std::sregex_iterator();
       ++it)
    track[{(*it)[1], (*it)[2]}] = (*it)[3];
  const std::regex flow(R"re(\{"ph":"([st])","cat":"msg","id":(\d+),"pid":(\d+),"tid":(\d+),"ts":[0-9.]+,"name":"(\w+)"\})re");
  std::map<std::string, std::vector<std::string>> path; // id -> "ph track", in order
  std::map<std::string, std::string> kind;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), flow); it != std::sregex_iterator();
       ++it) {
    path[(*it)[2]].push_back((*it)[1].str() + " " + track[{(*it)[3], (*it)[4]}]);
    kind[(*it)[2]] = (*it)[5];
  }
  // The first read of A: the DMA's read stage, the XBAR, the HBM, the
  // XBAR with the data, the DMA.
  const std::string read = std::find_if(kind.begin(), kind.end(), [](const auto& k) {
                             return k.second == "mem_read";
                           })->first;
  EXPECT_EQ(path[read], (std::vector<std::string>{"s pe_dma/read", "t xbar/in", "t hbm/in",
                                                  "t xbar/in", "t pe_dma/in"}));
  // The first tile token: from the scheduler to the DMA, on from its read
  // stage to the fetch unit, on to the GEMM, its tile_done back.
  const std::string token = std::find_if(kind.begin(), kind.end(), [](const auto& k) {
                              return k.second == "tile_token";
                            })->first;
  ASSERT_GE(path[token].size(), 5u);
  EXPECT_EQ(path[token][0], "s pe_scheduler/in");
  EXPECT_EQ(path[token][1], "t pe_dma/in");
  EXPECT_EQ(path[token][2], "t pe_dma/read");
  EXPECT_EQ(path[token][3], "t pe_fetch_store/in");
  EXPECT_EQ(path[token].back(), "t pe_scheduler/in") << "its tile_done";
}

TEST(trace_check, one_cube_of_the_1024_pe_machine_over_a_window_is_drawn_whole) {
  const std::string dir = test::temp_dir("trace_check_cube");
  const auto r = run_kernbench(
    "run --quiet --topology " + test::source_dir() +
    "/config/scale/4sip_4cube_64pe.yaml --pes all --M 128 --K 128 --N 128 "
    "--placement remote-cube --trace-hops --trace-select 'sip1.cube2.*' --trace-window 2us:6us "
    "--trace " + dir + "/cube.json.gz");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Slices the window cuts stay open at its end; everything else holds.
  EXPECT_EQ(check_trace(dir + "/cube.json.gz", dir).exit_code, 1);
  const auto c = check_trace(dir + "/cube.json.gz", dir, "--window");
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
}

TEST(trace_check, counters_step_back_to_zero_and_processes_come_in_natural_order) {
  // 16 PEs of one cube read from its one HBM at once: requests queue there.
  const std::string dir = test::temp_dir("trace_counters");
  const auto r = run_kernbench("run --quiet --topology " + test::source_dir() +
                               "/config/scale/1sip_4cube_64pe.yaml --pes 16 --M 128 --K 128 "
                               "--N 128 --trace-hops --trace " + dir + "/t.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = slurp(dir + "/t.json");
  const std::regex sample(R"re(\{"ph":"C","pid":(\d+),"ts":[0-9.]+,"name":"([^"]+)","args":\{"(\w+)":(-?\d+)\}\})re");
  std::map<std::pair<std::string, std::string>, std::vector<long long>> values;
  for (auto it = std::sregex_iterator(json.begin(), json.end(), sample); it != std::sregex_iterator();
       ++it)
    values[{(*it)[1], (*it)[2]}].push_back(std::stoll((*it)[4]));
  ASSERT_GT(values.size(), 16u);
  long long hbm_most = 0, gemm_most = 0, sched_least = 4;
  // The units' queues and their senders' credits (docs/adr/0040).
  size_t links = 0, queues = 0, credits = 0;
  for (const auto& [counter, v] : values) {
    SCOPED_TRACE(counter.second);
    const auto [least, most] = std::minmax_element(v.begin(), v.end());
    if (counter.second.find("/credits for ") != std::string::npos) {
      // Credits a sender has left for a bounded queue (depth 4 on every
      // link of this machine): between 0 and 4, all back once the run is
      // over.
      EXPECT_GE(*least, 0);
      EXPECT_LE(*most, 4);
      EXPECT_EQ(v.back(), 4);
      ++credits;
      if (counter.second == "pe_scheduler/credits for pe_dma/read")
        sched_least = std::min(sched_least, *least);
      continue;
    }
    // A counter counts what started and has not ended: never below 0, and
    // 0 once the run is over.
    EXPECT_GE(*least, 0);
    EXPECT_EQ(v.back(), 0);
    if (counter.second == "hbm/serve queue")
      hbm_most = *most;
    if (counter.second == "pe_gemm/gemm queue") {
      // Messages in a unit's bounded input queue: at most its depth.
      EXPECT_LE(*most, 4);
      gemm_most = std::max(gemm_most, *most);
    }
    queues += counter.second.ends_with(" queue") && counter.second.rfind("pe_", 0) == 0;
    links += counter.second.rfind("link pe_dma -> sip0.cube0.xbar", 0) == 0;
  }
  EXPECT_GT(hbm_most, 1) << "16 PEs' first reads wait for the one HBM";
  EXPECT_LE(hbm_most, 32) << "at most A's and B's first reads of each PE";
  EXPECT_EQ(links, 16u) << "each PE's DMA link to the XBAR";
  EXPECT_GE(gemm_most, 1) << "tile tokens wait in the GEMM's queue";
  EXPECT_GT(queues, 16u * 4) << "every PE's units' queues";
  EXPECT_GT(credits, 16u * 4) << "every PE's senders' credits";
  EXPECT_LT(sched_least, 4) << "the scheduler spends credits toward the DMA's read lane";
  // Processes: the cube, then its PEs by number, each with its sort index.
  EXPECT_NE(json.find(R"("process_name","pid":11,"args":{"name":"sip0.cube0.pe9"})"),
            std::string::npos);
  EXPECT_NE(json.find(R"("process_name","pid":12,"args":{"name":"sip0.cube0.pe10"})"),
            std::string::npos);
  EXPECT_NE(json.find(R"("process_sort_index","pid":12,"args":{"sort_index":12})"),
            std::string::npos);
  // Tracks without stages are named by what they hold.
  for (const char* track : {"pe_cpu/kernel", "m_cpu/kernel", "pe_scheduler/events", "hbm/serve",
                            "xbar/in"})
    EXPECT_NE(json.find(fmt::format("\"name\":\"{}\"}}", track)), std::string::npos) << track;
  const auto c = check_trace(dir + "/t.json", dir);
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
}

TEST(trace_check, a_units_queue_and_its_senders_credits_step_as_derived_by_hand) {
  // One PE, one 128^3 tile (docs/adr/0040): the scheduler releases its
  // token at 7 ns, spending one of the 4 credits of the DMA's read queue
  // (pe_queue_depth 4): 3 left. Its head reaches the DMA 1 ns later (one
  // cycle of PE wire): 1 in the queue; the DMA is idle and takes it at
  // once: 0, and returns the credit, which arrives 1 ns later: 4 again.
  const std::string dir = test::temp_dir("trace_credits");
  const auto r = run_kernbench("run --quiet --M 128 --K 128 --N 128 --trace-hops --trace " + dir +
                               "/t.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = slurp(dir + "/t.json");
  const auto samples = [&](const std::string& name) {
    std::vector<std::string> out;
    const std::regex sample(R"re(\{"ph":"C","pid":\d+,"ts":([0-9.]+),"name":")re" + name +
                            R"re(","args":\{"\w+":(-?\d+)\}\})re");
    for (auto it = std::sregex_iterator(json.begin(), json.end(), sample);
         it != std::sregex_iterator(); ++it)
      out.push_back(std::string((*it)[1]) + " " + std::string((*it)[2]));
    return out;
  };
  EXPECT_EQ(samples("pe_scheduler/credits for pe_dma/read"),
            (std::vector<std::string>{"0.007000 3", "0.009000 4"}));
  EXPECT_EQ(samples("pe_dma/read queue"),
            (std::vector<std::string>{"0.008000 1", "0.008000 0"}));
}

TEST(trace_check, a_link_between_sips_is_a_process_with_its_bytes_in_flight) {
  // B in the next SIP's HBM: reads cross the inter-SIP link, data comes back.
  const std::string dir = test::temp_dir("trace_sip_link");
  const auto r = run_kernbench("run --quiet --topology " + test::source_dir() +
                               "/config/scale/2sip_2cube_4pe.yaml --pes 1 --placement remote-sip "
                               "--M 128 --K 128 --N 128 --trace-hops --trace " + dir + "/t.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string json = slurp(dir + "/t.json");
  const std::regex process(R"re("process_name","pid":(\d+),"args":\{"name":"link sip0.cube0.noc <-> sip1.cube0.noc"\})re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(json, m, process)) << "a process for the inter-SIP link";
  const std::string pid = m[1];
  std::map<std::string, std::vector<long long>> values;
  const std::regex sample("\\{\"ph\":\"C\",\"pid\":" + pid +
                          R"re(,"ts":[0-9.]+,"name":"([^"]+)","args":\{"bytes":(\d+)\}\})re");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), sample); it != std::sregex_iterator();
       ++it)
    values[(*it)[1]].push_back(std::stoll((*it)[2]));
  // The read requests (no payload) go one way, B's 32 KiB come back the
  // other: at some time all of it in flight, none once it has arrived.
  ASSERT_EQ(values.size(), 1u);
  const auto& v = values["sip1.cube0.noc -> sip0.cube0.noc"];
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 32768);
  EXPECT_EQ(v.back(), 0);
  const auto c = check_trace(dir + "/t.json", dir);
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  // Hops without counter tracks: the link has nothing to show, so no process.
  const auto h = run_kernbench("run --quiet --topology " + test::source_dir() +
                               "/config/scale/2sip_2cube_4pe.yaml --pes 1 --placement remote-sip "
                               "--M 128 --K 128 --N 128 --trace-hops --trace-kinds hops --trace " +
                               dir + "/h.json");
  ASSERT_EQ(h.exit_code, 0) << h.err;
  const std::string hops = slurp(dir + "/h.json");
  EXPECT_NE(hops.find("\"ph\":\"s\""), std::string::npos) << "the hops' flows are drawn";
  EXPECT_EQ(hops.find("link sip0.cube0.noc <-> sip1.cube0.noc"), std::string::npos);
  EXPECT_EQ(hops.find("\"ph\":\"C\""), std::string::npos) << "no counter sample";
}

/// A trace of one PE process with a stage slice [1, 3] us on track 1.
std::string with_events(const std::string& more) {
  return R"({"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"args":{"name":"pe0"}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"dma/read"}},
{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"dma/in"}},
{"ph":"B","pid":1,"tid":1,"ts":1.0,"name":"read"},
{"ph":"E","pid":1,"tid":1,"ts":3.0})" +
         more + "]}";
}

TEST(trace_check, a_broken_trace_fails_naming_its_check) {
  const std::string dir = test::temp_dir("trace_check_broken");
  const std::string flow = R"(,
{"ph":"X","pid":1,"tid":2,"ts":4.0,"dur":1.0,"name":"mem_data from hbm"})";
  const std::pair<std::string, std::string> cases[] = {
    {"", "ok: names, slices, flows, counters"},
    {R"(,{"ph":"s","cat":"msg","id":1,"pid":1,"tid":1,"ts":2.0,"name":"m"})" + flow +
       R"(,{"ph":"f","bp":"e","cat":"msg","id":1,"pid":1,"tid":2,"ts":4.0,"name":"m"})",
     "ok: names, slices, flows, counters"},
    {R"(,{"ph":"B","pid":1,"tid":1,"ts":5.0,"name":"open"})", "FAIL slices"},
    {R"(,{"ph":"E","pid":1,"tid":1,"ts":5.0})", "FAIL slices"},
    {R"(,{"ph":"X","pid":1,"tid":1,"ts":2.5,"dur":1.0,"name":"across"})", "FAIL slices"},
    {R"(,{"ph":"s","cat":"msg","id":1,"pid":1,"tid":1,"ts":3.5,"name":"m"})" + flow +
       R"(,{"ph":"f","bp":"e","cat":"msg","id":1,"pid":1,"tid":2,"ts":4.0,"name":"m"})",
     "FAIL flows"}, // starts after its slice ended
    {R"(,{"ph":"s","cat":"msg","id":1,"pid":1,"tid":1,"ts":2.0,"name":"m"})" + flow +
       R"(,{"ph":"f","cat":"msg","id":1,"pid":1,"tid":2,"ts":4.0,"name":"m"})",
     "FAIL flows"}, // an end that binds to the next slice, not its own
    {R"(,{"ph":"s","cat":"msg","id":1,"pid":1,"tid":1,"ts":2.0,"name":"m"})",
     "FAIL flows"}, // a start and nothing else
    {R"(,{"ph":"s","cat":"msg","id":1,"pid":1,"tid":1,"ts":2.0,"name":"m"})" + flow +
       R"(,{"ph":"t","cat":"msg","id":1,"pid":1,"tid":2,"ts":4.5,"name":"m"})",
     "ok: names, slices, flows, counters"}, // a start and a step
    {R"(,{"ph":"s","cat":"msg","id":1,"pid":1,"tid":1,"ts":2.0,"name":"m"})" + flow +
       R"(,{"ph":"t","cat":"msg","id":1,"pid":1,"tid":2,"ts":5.5,"name":"m"})",
     "FAIL flows"}, // a step after its slice ended
    {R"(,{"ph":"s","cat":"msg","id":1,"pid":1,"tid":1,"ts":2.0,"name":"m"})" + flow +
       R"(,{"ph":"t","cat":"msg","id":1,"pid":1,"tid":2,"ts":4.5,"name":"m"})"
       R"(,{"ph":"t","cat":"msg","id":1,"pid":1,"tid":2,"ts":4.5,"name":"m"})",
     "FAIL flows"}, // a step repeated on its slice: an arrow to itself
    {R"(,{"ph":"i","s":"t","pid":1,"tid":7,"ts":2.0,"name":"tile_ready"})", "FAIL names"},
    {R"(,{"ph":"i","s":"t","pid":9,"tid":1,"ts":2.0,"name":"tile_ready"})", "FAIL names"},
    {R"(,{"ph":"C","pid":1,"ts":2.0,"name":"queue","args":{"depth":2}},
{"ph":"C","pid":1,"ts":1.0,"name":"queue","args":{"depth":1}})",
     "FAIL counters"},
  };
  for (const auto& [more, verdict] : cases) {
    SCOPED_TRACE(more);
    std::ofstream(dir + "/t.json") << with_events(more);
    const auto c = check_trace(dir + "/t.json", dir);
    EXPECT_EQ(c.exit_code, verdict.rfind("ok", 0) == 0 ? 0 : 1) << c.out;
    EXPECT_NE(c.out.find(verdict), std::string::npos) << c.out;
  }
  std::ofstream(dir + "/t.json") << "{\"traceEvents\":[";
  const auto c = check_trace(dir + "/t.json", dir);
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("t.json: not a trace-event JSON file"), std::string::npos) << c.err;
}

} // namespace
} // namespace kb
