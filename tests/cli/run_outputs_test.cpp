// Issue 14: `run --set` overrides topology keys, `run --csv` appends one
// summary row, the progress heartbeat appears on a long run and not with
// --quiet without changing results, `list-components --json`.

#include "runtime/cli/heartbeat.hpp"
#include "runtime/report/csv_row.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

namespace kb {
namespace {

using test::run_kernbench;

using test::slurp;

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
    ++n;
  return n;
}

const std::string k_small = "run --quiet --M 256 --K 256 --N 256";

TEST(run_set, an_override_changes_the_machine_and_is_recorded) {
  const std::string dir = test::temp_dir("set");
  ASSERT_EQ(run_kernbench(k_small + " --json " + dir + "/base.json").exit_code, 0);
  const auto r = run_kernbench(k_small + " --set cube.pe_template.pe_gemm.mac_rows=64 --json " +
                               dir + "/big.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string base = slurp(dir + "/base.json"), big = slurp(dir + "/big.json");
  EXPECT_NE(base.find("\"peak_flop_per_s\": 2.048e+12"), std::string::npos) << base;
  // 64x32 MACs: twice the peak, and the GEMM unit is faster.
  EXPECT_NE(big.find("\"peak_flop_per_s\": 4.096e+12"), std::string::npos);
  EXPECT_NE(big.find("\"set\": [\n    \"cube.pe_template.pe_gemm.mac_rows=64\"\n  ]"),
            std::string::npos);
  EXPECT_NE(base.find("\"set\": []"), std::string::npos);
}

TEST(run_json, a_result_names_its_build_and_carries_the_machine_that_reproduces_it) {
  // A result could not be reproduced from itself: it held the topology's
  // path and the --set list only (issue 33).
  const std::string dir = test::temp_dir("machine");
  const auto r = run_kernbench(k_small + " --set cube.pe_template.pe_gemm.mac_rows=64 --set "
                                         "cube.components.xbar.latency_ns=7 --json " +
                               dir + "/a.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string a = slurp(dir + "/a.json");
  EXPECT_TRUE(std::regex_search(
    a, std::regex("\n  \"kernbench\": \\{\n    \"version\": \"0\\.1\\.0\",\n    \"git\": "
                  "\"([0-9a-f]{7,}|unknown)\"\n  \\},\n  \"machine\": \\{\n")))
    << a.substr(a.find("\"kernbench\""), 200);
  // The overrides are in it, numbers as numbers.
  EXPECT_NE(a.find("\"pe_gemm\": {\n            \"impl\": \"pe_gemm_v1\",\n            "
                   "\"mac_rows\": 64,"),
            std::string::npos);
  EXPECT_NE(a.find("\"latency_ns\": 7"), std::string::npos);
  // Saved as a topology, the machine runs to the same results.
  const size_t at = a.find("\n  \"machine\": ") + 14;
  std::ofstream(dir + "/machine.json") << a.substr(at, a.find(",\n  \"complete\": ") - at) << "\n";
  const auto again = run_kernbench(k_small + " --topology " + dir + "/machine.json --json " + dir +
                                   "/b.json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const std::string b = slurp(dir + "/b.json");
  auto from_end_ps = [](const std::string& s) {
    const std::string r = test::json_results(s);
    return r.substr(r.find("\n  \"end_ps\""));
  };
  EXPECT_EQ(from_end_ps(b), from_end_ps(a)); // the machine itself included
  EXPECT_NE(b.find("\"set\": []"), std::string::npos);
}

// A top-level key the file leaves at its default can be set (fabric_credits,
// ADR-0033, is in no shipped file); a misspelt one is refused by the
// loader's key list, naming it.
TEST(run_set, a_top_level_key_the_file_leaves_out_can_be_set) {
  auto r = run_kernbench(k_small + " --set fabric_credits=true --set link_queue_depth=1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run_kernbench(k_small + " --set fabric_credit=true");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("fabric_credit: unknown key 'fabric_credit' (allowed: clock_period_ps, "
                       "cube, fabric_credits,"),
            std::string::npos)
    << r.err;
  EXPECT_NE(r.err.find("(after --set fabric_credit=true)"), std::string::npos) << r.err;
}

TEST(run_set, an_unknown_key_is_refused_naming_it) {
  auto r = run_kernbench(k_small + " --set cube.pe_template.pe_gem.mac_rows=64");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--set cube.pe_template.pe_gem.mac_rows: no key 'pe_gem' in "
                       "cube.pe_template"),
            std::string::npos)
    << r.err;
  r = run_kernbench(k_small + " --set cube.pe_template.pe_gemm.mac_rowz=64");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown key 'mac_rowz'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(after --set cube.pe_template.pe_gemm.mac_rowz=64)"), std::string::npos);
  r = run_kernbench(k_small + " --set mac_rows");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--set 'mac_rows': expected KEY=VALUE"), std::string::npos) << r.err;
}

TEST(run_csv, each_run_appends_one_row_under_one_header) {
  const std::string dir = test::temp_dir("csv");
  const std::string csv = dir + "/runs.csv";
  ASSERT_EQ(run_kernbench(k_small + " --csv " + csv).exit_code, 0);
  ASSERT_EQ(run_kernbench(k_small + " --set clock_period_ps=500 --csv " + csv).exit_code, 0);
  const std::string text = slurp(csv);
  EXPECT_EQ(count(text, "\n"), 3u) << text;
  EXPECT_EQ(text.rfind("topology,set,program,pes,end_ps,max_latency_ps,", 0), 0u);
  EXPECT_EQ(count(text, "topology,set,"), 1u);
  EXPECT_NE(text.find(",clock_period_ps=500,gemm 256x256x256 f16"), std::string::npos) << text;
  EXPECT_NE(text.find("sip0.cube0.pe0.pe_gemm/gemm"), std::string::npos);
}

TEST(run_csv, a_file_of_another_layout_is_not_appended_to) {
  const std::string dir = test::temp_dir("csv_foreign");
  const std::string csv = dir + "/other.csv";
  std::ofstream(csv) << "a,b\n1,2\n";
  const auto r = run_kernbench(k_small + " --csv " + csv);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--csv file '" + csv + "': its first line is not the header"),
            std::string::npos)
    << r.err;
  EXPECT_EQ(slurp(csv), "a,b\n1,2\n");
}

// ~0.3 s of run (0.1 s of simulation, 131,072 tiles): with a 20 ms
// heartbeat it prints several lines.
const std::string k_long = "run --M 8192 --K 4096 --N 2048 --json ";

TEST(heartbeat, a_long_run_reports_progress_and_quiet_silences_it) {
  const std::string dir = test::temp_dir("heartbeat");
  const auto loud = run_kernbench(k_long + dir + "/loud.json", "KB_HEARTBEAT_MS=20");
  ASSERT_EQ(loud.exit_code, 0) << loud.err;
  EXPECT_GE(count(loud.err, "kernbench run: "), 2u) << loud.err;
  EXPECT_NE(loud.err.find(" M events/s, "), std::string::npos);
  EXPECT_NE(loud.err.find("/1 commands done"), std::string::npos);
  EXPECT_NE(loud.err.find("% of tiles"), std::string::npos);
  const auto quiet = run_kernbench(k_long + dir + "/quiet.json --quiet", "KB_HEARTBEAT_MS=20");
  ASSERT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err, "");
  const std::string a = slurp(dir + "/loud.json"), b = slurp(dir + "/quiet.json");
  EXPECT_GT(a.size(), 1000u);
  EXPECT_EQ(test::json_results(a), test::json_results(b)); // byte-identical results
  // ... but for how each was started.
  EXPECT_NE(b.find("\"--quiet\"\n    ],"), std::string::npos) << b;
}

TEST(heartbeat, a_short_run_prints_nothing_by_default) {
  const auto r = run_kernbench("run --M 256 --K 256 --N 256");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
}

TEST(list_components, json_lists_kinds_impls_keys_and_ports) {
  const auto r = run_kernbench("list-components --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\n  \"schema_version\": 2,\n  \"kinds\": [", 0), 0u) << r.out;
  const YAML::Node doc = YAML::Load(r.out); // JSON is YAML
  std::map<std::string, YAML::Node> impls;
  for (const auto& k : doc["kinds"])
    for (const auto& i : k["impls"]) {
      EXPECT_EQ(i["description"].as<std::string>().empty(), false);
      impls.emplace(i["impl"].as<std::string>(), static_cast<const YAML::Node&>(i));
    }
  ASSERT_EQ(impls.size(), 15u); // host_v1 too (ADR-0043)
  auto keys = [&](const std::string& impl) {
    std::vector<std::string> out;
    for (const auto& k : impls.at(impl)["keys"])
      out.push_back(k["name"].as<std::string>());
    return out;
  };
  // Two impls of one kind, each with the keys it reads (ADR-0037).
  EXPECT_EQ(keys("hbm_ctrl_v1"), (std::vector<std::string>{"bandwidth_gbps", "latency_ns"}));
  EXPECT_EQ(keys("hbm_ctrl_channels_v1"),
            (std::vector<std::string>{"bandwidth_gbps", "latency_ns", "channels",
                                      "interleave_bytes"}));
  const YAML::Node rows = impls.at("pe_gemm_v1")["keys"][0];
  EXPECT_EQ(rows["name"].as<std::string>(), "mac_rows");
  EXPECT_EQ(rows["type"].as<std::string>(), "uint");
  EXPECT_EQ(rows["default"].as<std::string>(), "32");
  EXPECT_EQ(impls.at("xbar_v1")["keys"][0]["default"].as<std::string>(), "2");
  const YAML::Node ports = impls.at("pe_gemm_v1")["ports"];
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0]["name"].as<std::string>(), "math");
  EXPECT_EQ(ports[0]["to"].as<std::string>(), "pe_math");
}

TEST(list_components, the_registry_is_the_build_and_no_file_replaces_it) {
  const auto r = run_kernbench("run --components " + test::source_dir() +
                               "/config/components.yaml --M 128 --K 128 --N 128");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--components"), std::string::npos) << r.err;
}

TEST(help, every_subcommand_gives_an_example) {
  for (const std::string cmd : {"run", "phold", "schedule", "list-components", "sweep",
                                "trace", "trace convert", "trace stats"}) {
    const auto r = test::run_kernbench(cmd + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd;
    const size_t at = r.out.find("Example");
    ASSERT_NE(at, std::string::npos) << cmd << ":\n" << r.out;
    EXPECT_NE(r.out.find("kernbench " + cmd.substr(0, cmd.find(' ')), at), std::string::npos)
      << cmd;
  }
}


TEST(heartbeat, the_line_gives_time_rate_commands_and_time_left) {
  progress_counters c;
  c.max_time_ps = 1234567890;
  c.tiles_ready = 250;
  c.commands_done = 1;
  EXPECT_EQ(progress_line("kernbench run", 4.04, 2.5e6, 50, c, {1000, 4}),
            "kernbench run: 4.0 s: simulated 1234.567 us, 2.50 M events/s, 1/4 commands done, "
            "25% of tiles, about 15 s left");
  const std::string stalled = progress_line("x", 2, 0, 0, c, {1000, 4});
  EXPECT_EQ(stalled.substr(stalled.find("25%")), "25% of tiles, time left not known yet");
}

// Until the machine is built (simulation::run's on_running), the lines say
// so rather than report a simulated time of zero.
TEST(heartbeat, says_setting_up_until_the_event_loop_runs) {
  const std::string path = test::temp_dir("heartbeat_setup") + "/lines";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  auto c = std::make_shared<progress_counters>();
  auto lines_with = [&](const std::string& what) {
    for (int k = 0; k < 6000 && slurp(path).find(what) == std::string::npos; ++k)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return slurp(path).find(what) != std::string::npos;
  };
  {
    heartbeat beat("kb", c, {}, std::chrono::milliseconds(5), f);
    EXPECT_TRUE(lines_with("kb: "));
    EXPECT_EQ(slurp(path).substr(0, 4), "kb: ");
    EXPECT_NE(slurp(path).find(" s: setting up the machine\n"), std::string::npos) << slurp(path);
    EXPECT_EQ(slurp(path).find("simulated"), std::string::npos);
    c->running = true;
    EXPECT_TRUE(lines_with("simulated 0.000 us")) << slurp(path);
  }
  std::fclose(f);
}

TEST(csv_row, fields_with_commas_and_quotes_are_quoted_and_split_back) {
  const std::vector<std::string> f{"a", "b,c", "say \"hi\"", ""};
  EXPECT_EQ(csv_line(f), "a,\"b,c\",\"say \"\"hi\"\"\",\n");
  std::string line = csv_line(f);
  line.pop_back();
  EXPECT_EQ(csv_split(line), f);
}

} // namespace
} // namespace kb
