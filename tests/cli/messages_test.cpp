// Messages say what went wrong in the user's terms (issue 15, item 6).

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <utility>
#include <vector>

namespace kb {
namespace {

using test::run_kernbench;

TEST(messages, kernbench_alone_prints_the_help) {
  const auto r = run_kernbench("");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "kernbench: a tiled-NPU simulator");
  for (const char* sub : {"run", "phold", "schedule", "list-components", "--version"})
    EXPECT_NE(r.out.find(sub), std::string::npos) << sub;
}

TEST(messages, every_subcommands_help_gives_an_example) {
  for (const char* sub : {"run", "sweep", "trace", "trace convert", "trace stats", "phold",
                          "peer", "schedule", "list-components", "list-kernels", "topology",
                          "topology scale"}) {
    const auto r = run_kernbench(std::string(sub) + " --help");
    EXPECT_EQ(r.exit_code, 0) << sub;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("\nExamples?:\n  kernbench ")))
      << sub << ":\n" << r.out;
  }
}

TEST(messages, the_help_documents_every_exit_status) {
  for (const char* sub : {"--help", "run --help"}) {
    const auto r = run_kernbench(sub);
    EXPECT_EQ(r.exit_code, 0) << sub;
    for (const char* status : {"Exit status: 0 ", ", 1 the run failed", ", 2 bad input",
                               ", 3 --verify found a mismatch", "130/143 ended by SIGINT/SIGTERM"})
      EXPECT_NE(r.out.find(status), std::string::npos) << sub << ": " << status;
  }
}

TEST(messages, version_prints_the_version_and_the_git_hash) {
  const auto r = run_kernbench("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(std::regex_match(r.out, std::regex("kernbench 0\\.1\\.0 \\(([0-9a-f]{7,}|unknown)\\)\n")))
    << r.out;
}

TEST(messages, every_usage_error_exits_2_as_bad_input) {
  // CLI11's own codes (109 unknown option, 106 no or unknown subcommand, 105
  // out of range, 114 a value that does not convert) are the README's 2.
  const std::vector<std::pair<std::string, std::string>> cases = {
    {"run --bogus", "The following argument was not expected: --bogus\n"},
    {"--threads 2", "A subcommand is required\n"},
    {"phold --shards 5000", "--shards: Value 5000 not in range 0 to 1024\n"},
    {"run --threads x", "--threads: Value x not in range 1 to 1024\n"},
  };
  for (const auto& [args, first] : cases) {
    const auto r = run_kernbench(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n') + 1), first) << args;
    EXPECT_NE(r.err.find("Run with --help for more information.\n"), std::string::npos) << args;
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST(messages, tile_takes_the_sweep_syntax_too) {
  // `--tile 64x64x64`, as sweep writes a tile, was refused by run (issue 33).
  const auto x = run_kernbench("run --M 128 --N 128 --K 128 --tile 64x64x64 --quiet");
  const auto spaced = run_kernbench("run --M 128 --N 128 --K 128 --tile 64 64 64 --quiet");
  EXPECT_EQ(x.exit_code, 0) << x.err;
  EXPECT_EQ(test::without_wall(x.out), test::without_wall(spaced.out));
  EXPECT_NE(x.out.find("tiles 64x64x64"), std::string::npos) << x.out;
  const auto bad = run_kernbench("run --tile 64x64x64x64");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.substr(0, bad.err.find('\n')), "--tile: At Most 3 required but received 4");
}

TEST(messages, an_unknown_command_is_named_with_the_known_ones) {
  const auto r = run_kernbench("nosuch --lps 4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: unknown command 'nosuch' (the commands: run, phold, peer, "
                   "list-components, list-kernels, schedule, sweep, plot, trace, records, topology)\n");
}

TEST(messages, a_directory_given_as_the_topology_says_so) {
  const std::string dir = test::temp_dir("topology_dir");
  const auto r = run_kernbench("run --topology " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: " + dir + ": is a directory, not a file\n");
}

TEST(messages, malformed_json_is_called_json) {
  const std::string path = test::temp_dir("bad_json") + "/loop.json";
  std::ofstream(path) << "{\"resources\": {\"dma\": 1},\n \"ops\": [{\"name\": \"a\"}\n}";
  const auto r = run_kernbench("schedule " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench schedule: " + path + ":3: malformed JSON: illegal flow end\n");
}

TEST(messages, a_bad_connect_says_what_is_expected) {
  for (const std::string bad : {"localhost", "localhost:http", ":4242", "h:70000", "h:0"}) {
    const auto r = run_kernbench("phold --lps 4 --procs 2 --rank 1 --connect " + bad);
    EXPECT_EQ(r.exit_code, 2);
    const std::string head = "kernbench: error: --connect '" + bad + "': ";
    const std::string tail = "; expected HOST:PORT with a port from 1 to 65535 (e.g. "
                             "127.0.0.1:4242)\n";
    EXPECT_EQ(r.err.substr(0, head.size()), head) << r.err;
    EXPECT_GT(r.err.size(), head.size() + tail.size()) << r.err; // says what is wrong
    EXPECT_EQ(r.err.substr(r.err.size() - std::min(r.err.size(), tail.size())), tail) << r.err;
  }
}

TEST(messages, a_rank_that_reads_its_port_names_what_it_read) {
  // `--connect HOST:-`: a peer's part builds first, then reads rank 0's port
  // from its standard input (one line), as the peer writes it at `go`.
  const std::string dir = test::temp_dir("port_line");
  const std::vector<std::pair<std::string, std::string>> cases = {
    {"abc\n", "'abc' is not a port (1 to 65535)"},
    {"70000\n", "'70000' is not a port (1 to 65535)"},
    {"0\n", "'0' is not a port (1 to 65535)"},
    {"", "the input ended before rank 0's port came (the process that started this rank "
         "ended?)"},
    {"4242", "the input ended before rank 0's port came (the process that started this rank "
             "ended?)"}};
  for (const auto& [input, why] : cases) {
    const std::string in = dir + "/in";
    std::ofstream(in) << input;
    const auto r = run_kernbench("run --topology " + test::source_dir() +
                                 "/config/scale/2sip_2cube_4pe.yaml --procs 2 --rank 1 "
                                 "--connect 127.0.0.1:- <" + in);
    EXPECT_EQ(r.exit_code, 2) << input;
    EXPECT_EQ(r.err, "kernbench: error: --connect HOST:-: " + why + "\n") << input;
  }
}

TEST(messages, a_rank_outside_the_run_is_refused) {
  const auto r = run_kernbench("phold --lps 4 --procs 2 --rank 2 --connect 127.0.0.1:1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --rank 2: must be below --procs 2\n");
}

TEST(messages, one_host_is_a_workers_option_only) {
  // Rank 0 knows its processes share the host because it starts them
  // (--procs); a worker is told so. Given to rank 0, it is refused by name.
  const std::string why = "kernbench: error: --one-host: only for the worker processes rank 0 "
                          "starts (--rank R, R > 0); rank 0 knows it from --procs\n";
  const auto phold = run_kernbench("phold --lps 4 --procs 2 --one-host");
  EXPECT_EQ(phold.exit_code, 2);
  EXPECT_EQ(phold.err, why);
  const auto run = run_kernbench("run --topology " + test::source_dir() +
                                 "/config/scale/2sip_2cube_4pe.yaml --procs 2 --one-host");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, why);
}

TEST(messages, an_overflowing_latency_is_named_not_reported_as_a_deadlock) {
  const std::string path = test::temp_dir("huge_link") + "/t.yaml";
  std::ofstream(path) << "cube:\n"
                         "  pe_layout: {count: 1}\n"
                         "  pe_template: {components: {}, links: []}\n"
                         "  components: {xbar: {impl: xbar_v1}, noc: {impl: noc_v1}}\n"
                         "  links:\n"
                         "    - {from: xbar, to: noc, latency_ps: 18446744073709551615}\n";
  const auto r = run_kernbench("run --topology " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: " + path +
                     ":6: cube.links[0].latency_ps: 18446744073709551615 ps exceeds the limit "
                     "of 281474976710656 ps (2^48 ps, about 281 s of virtual time; time sums "
                     "must fit in 64 bits)\n");
}

// A multi-cube machine whose cubes are not joined by UCIe: refused when it
// is built, naming the file and the first pair without a route.
TEST(messages, a_machine_without_its_ucie_link_names_the_unreachable_pair) {
  const std::string path = test::temp_dir("no_ucie") + "/machine.yaml";
  {
    std::ifstream in(test::source_dir() + "/config/scale/2sip_2cube_4pe.yaml");
    std::ofstream out(path);
    for (std::string line; std::getline(in, line);)
      if (line.find("{from: cube0.noc, to: cube1.noc") == std::string::npos)
        out << line << "\n";
  }
  // On 2 threads the routes are built beside the machine: the same error,
  // before any node is.
  for (const char* threads : {"1", "2"}) {
    const auto r = run_kernbench("run --topology " + path +
                                 " --pes all --M 128 --K 128 --N 128 --threads " + threads);
    EXPECT_EQ(r.exit_code, 2) << threads;
    EXPECT_EQ(r.err.rfind("kernbench: error: " + path +
                            ": no route from sip0.cube0.pe0.pe_dma to sip0.cube1.hbm: ",
                          0),
              0u)
      << threads << ": " << r.err;
  }
}

// Channels are a key of the per-channel impl; the aggregated one refuses
// them naming the file, line and key, and the per-channel one runs.
TEST(messages, hbm_channels_need_the_per_channel_impl) {
  const std::string dir = test::temp_dir("hbm_channels");
  auto write_with = [&](const std::string& name, const std::string& hbm) {
    std::ifstream in(test::source_dir() + "/config/topology.yaml");
    std::ofstream out(dir + "/" + name);
    for (std::string line; std::getline(in, line);)
      out << (line.find("    hbm: {kind: hbm_ctrl") == 0 ? "    hbm: " + hbm : line) << "\n";
    return dir + "/" + name;
  };
  const std::string agg = write_with(
    "agg.yaml", "{kind: hbm_ctrl, impl: hbm_ctrl_v1, bandwidth_gbps: 512, latency_ns: 100, channels: 4}");
  auto r = run_kernbench("run --topology " + agg + " --M 128 --K 128 --N 128");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(agg + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cube.components.hbm.channels: impl hbm_ctrl_v1 does not read "
                       "'channels'; impl hbm_ctrl_channels_v1 of kind hbm_ctrl does"),
            std::string::npos)
    << r.err;
  const std::string ch = write_with("ch.yaml", "{kind: hbm_ctrl, impl: hbm_ctrl_channels_v1, "
                                               "bandwidth_gbps: 512, latency_ns: 100, channels: 8}");
  r = run_kernbench("run --topology " + ch + " --M 128 --K 128 --N 128");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

} // namespace
} // namespace kb
