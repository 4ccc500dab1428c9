// `kernbench topology scale` writes the machines of config/scale/: the
// generated 4 x 4 x 64 machine runs as the shipped one, the shipped 16- and
// 64-SIP files are what it writes now, its SIPs form a ring and its cubes a
// mesh, and bad values are refused naming the option (issue 31 item 6).

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <utility>

namespace kb {
namespace {

using test::run_kernbench;
using test::slurp;
using test::source_dir;

/// The generator's output for these options (exit 0 asserted).
std::string generated(const std::string& options) {
  const auto r = run_kernbench("topology scale " + options);
  EXPECT_EQ(r.exit_code, 0) << options << ": " << r.err;
  EXPECT_EQ(r.err, "") << options;
  return r.out;
}

/// The machine `topology scale options --out` writes, loaded as `run` loads it.
topology_spec generated_machine(const std::string& options) {
  const std::string file = test::temp_dir("generated") + "/machine.yaml";
  const auto r = run_kernbench("topology scale " + options + " --out " + file);
  EXPECT_EQ(r.exit_code, 0) << options << ": " << r.err;
  EXPECT_EQ(r.out, "") << options;
  return load_topology(file, builtin_kinds().catalog());
}

/// The pairs (a, b) of the links `prefix`a`.noc` -> `prefix`b`.noc`: the SIPs
/// joined for "sip" and ".cube0", the cubes of sip0 for "sip0.cube" and "".
std::set<std::pair<int, int>> joined(const topology_spec& m, const std::string& prefix,
                                     const std::string& suffix = "") {
  const std::regex end("^" + prefix + "(\\d+)" + suffix + "\\.noc$");
  std::set<std::pair<int, int>> pairs;
  for (const link_spec& l : m.links) {
    std::smatch from, to;
    if (std::regex_match(l.src, from, end) && std::regex_match(l.dst, to, end))
      pairs.emplace(std::stoi(from[1]), std::stoi(to[1]));
  }
  return pairs;
}

/// Both directions of each pair.
std::set<std::pair<int, int>> both_ways(const std::set<std::pair<int, int>>& pairs) {
  std::set<std::pair<int, int>> all;
  for (const auto& [a, b] : pairs) {
    all.emplace(a, b);
    all.emplace(b, a);
  }
  return all;
}

TEST(topology_scale, the_generated_4sip_machine_runs_as_the_shipped_one) {
  const std::string dir = test::temp_dir("same_results");
  const std::string made = dir + "/4sip.yaml";
  ASSERT_EQ(run_kernbench("topology scale --sips 4 --cubes 4 --pes 64 --out " + made).exit_code, 0);
  std::string results[2];
  const std::string topologies[2] = {source_dir() + "/config/scale/4sip_4cube_64pe.yaml", made};
  for (int i = 0; i < 2; ++i) {
    const std::string json = dir + "/run" + std::to_string(i) + ".json";
    const auto r = run_kernbench("run --topology " + topologies[i] +
                                 " --pes all --M 128 --K 128 --N 128 --quiet --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Only the file's name (and the invocation naming it) may differ.
    results[i] = std::regex_replace(test::json_results(slurp(json)),
                                    std::regex("\n  \"topology\": \"[^\"]*\","), "");
  }
  EXPECT_NE(results[0].find("\"machine\": {"), std::string::npos);
  EXPECT_EQ(results[0], results[1]);
}

TEST(topology_scale, the_shipped_machines_are_what_it_writes) {
  for (const char* sips : {"16", "64"}) {
    const std::string file =
      source_dir() + "/config/scale/" + std::string(sips) + "sip_4cube_64pe.yaml";
    const std::string text = generated(std::string("--sips ") + sips + " --cubes 4 --pes 64");
    EXPECT_EQ(text, slurp(file)) << file << " is not what `kernbench topology scale --sips "
                                 << sips << " --cubes 4 --pes 64` writes now";
    EXPECT_NE(text.find("\n# Written by `kernbench topology scale --sips " + std::string(sips) +
                        " --cubes 4 --pes 64`\n"),
              std::string::npos);
  }
}

TEST(topology_scale, the_sips_form_a_ring) {
  const auto sips_joined = [](const topology_spec& m) { return joined(m, "sip", ".cube0"); };
  EXPECT_EQ(sips_joined(generated_machine("--sips 1 --cubes 1 --pes 1")).size(), 0u);
  EXPECT_EQ(sips_joined(generated_machine("--sips 2 --cubes 1 --pes 1")), both_ways({{0, 1}}));
  // Every SIP's cube0 NOC to the next's, the last to the first; 500 ns each.
  const topology_spec three = generated_machine("--sips 3 --cubes 2 --pes 1");
  EXPECT_EQ(sips_joined(three), both_ways({{0, 1}, {1, 2}, {2, 0}}));
  EXPECT_EQ(joined(three, "sip", ".cube1").size(), 0u);
  for (const link_spec& l : three.links) {
    if (l.src.ends_with(".cube0.noc") && l.dst.ends_with(".cube0.noc")) {
      EXPECT_EQ(l.latency, ns(500)) << l.src << " -> " << l.dst;
    }
  }
}

TEST(topology_scale, the_cubes_form_the_most_square_mesh_and_the_pes_a_grid) {
  // 6 cubes: 2 x 3, cube r*3+c linked to its right and lower neighbours.
  const topology_spec m = generated_machine("--sips 1 --cubes 6 --pes 12");
  EXPECT_EQ(m.cubes_per_sip, 6u);
  EXPECT_EQ(joined(m, "sip0.cube"),
            both_ways({{0, 1}, {1, 2}, {3, 4}, {4, 5}, {0, 3}, {1, 4}, {2, 5}}));
  EXPECT_EQ(m.pe_layout.rows, 3u);
  EXPECT_EQ(m.pe_layout.cols, 4u);
  const topology_spec line = generated_machine("--sips 1 --cubes 7 --pes 7");
  EXPECT_EQ(joined(line, "sip0.cube").size(), 12u); // a 1 x 7 line: 6 links, both ways
  EXPECT_EQ(line.pe_layout.rows, 1u);
  EXPECT_EQ(line.pe_layout.cols, 7u);
}

TEST(topology_scale, bad_values_are_refused_naming_the_option) {
  const std::string good = "--sips 2 --cubes 2 --pes 4";
  for (const char* option : {"--sips", "--cubes", "--pes"}) {
    // The option last, so that its value wins over the good one.
    for (const char* value : {"0", "257", "x", "-1"}) {
      const auto r = run_kernbench("topology scale " + good + " " + option + " " + value);
      EXPECT_EQ(r.exit_code, 2) << option << " " << value;
      EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
                std::string(option) + ": Value " + value + " not in range 1 to 256");
      EXPECT_EQ(r.out, "");
    }
    const std::string without =
      std::regex_replace(good, std::regex(std::string(option) + " \\d+ ?"), "");
    const auto r = run_kernbench("topology scale " + without);
    EXPECT_EQ(r.exit_code, 2) << without;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), std::string(option) + " is required");
  }
  // Each value allowed, but too many nodes for the loader.
  const auto r = run_kernbench("topology scale --sips 256 --cubes 256 --pes 256");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find(" (")),
            "kernbench: error: --sips 256 --cubes 256 --pes 256 make 134545408 nodes, more "
            "than the limit of 1048576");
}

TEST(topology_scale, an_out_file_in_a_missing_directory_is_refused_naming_it) {
  const std::string file = test::temp_dir("missing") + "/no/such/dir/machine.yaml";
  const auto r = run_kernbench("topology scale --sips 1 --cubes 1 --pes 1 --out " + file);
  EXPECT_EQ(r.exit_code, 1); // a failed output, as for every command
  EXPECT_EQ(r.err, "kernbench: error: cannot write --out file '" + file +
                     "': No such file or directory\n");
  EXPECT_FALSE(std::filesystem::exists(file));
}

} // namespace
} // namespace kb
