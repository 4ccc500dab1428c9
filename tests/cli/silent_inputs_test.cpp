// Inputs that were accepted without a word or failed with a library's
// message (issue 35, items 5-7): each is refused, naming the option, the
// file or the kernel, before anything runs.

#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace kb {
namespace {

using test::run_kernbench;

TEST(silent_inputs, a_negative_seed_is_refused_not_wrapped) {
  // CLI11 read -1 as 18446744073709551615.
  for (const char* cmd : {"run --seed -1", "phold --seed -1"}) {
    const auto r = run_kernbench(cmd);
    EXPECT_NE(r.exit_code, 0) << cmd;
    EXPECT_NE(r.err.find("--seed: Value -1 is not a whole number from 0 up (no sign)"),
              std::string::npos)
      << cmd << ": " << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
}

TEST(silent_inputs, a_seed_beyond_2_to_the_64_is_refused_not_saturated) {
  // Issue 67 item 10: 18446744073709551616 ran as 18446744073709551615.
  for (const char* cmd : {"run --seed 18446744073709551616", "phold --seed 99999999999999999999"}) {
    const auto r = run_kernbench(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_NE(r.err.find("is beyond the largest it takes, 18446744073709551615 (2^64 - 1)"),
              std::string::npos)
      << cmd << ": " << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
  // The largest itself is a seed.
  const auto top = run_kernbench("run --quiet --M 64 --K 64 --N 64 --verify --seed "
                                 "18446744073709551615");
  EXPECT_EQ(top.exit_code, 0) << top.err;
}

TEST(silent_inputs, phase2_workers_is_bounded) {
  // 100,000 executor actors ran for minutes.
  const auto r = run_kernbench("run --phase2-workers 100000 --verify");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--phase2-workers: Value 100000 not in range 0 to 1024"), std::string::npos)
    << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(silent_inputs, a_grid_past_the_program_limit_is_refused_before_it_runs) {
  // 2^32 - 1 programs ran for minutes at "0 commands done" (a PE's
  // program list alone took 16 GB); 2^24 programs is the limit.
  const std::string why = " programs, more than the limit of 16777216 (2^24) in all (a PE runs "
                          "its programs one after the other, each simulated command by command)\n";
  for (const auto& [programs, grid] :
       std::vector<std::pair<std::string, std::string>>{{"4294967295", "4294967295x1x1"},
                                                        {"16777217", "16777217x1x1"}}) {
    const auto r = run_kernbench("run --kernel softmax --arg programs=" + programs);
    EXPECT_EQ(r.exit_code, 2) << programs;
    EXPECT_EQ(r.err, "kernbench: error: kernel softmax: a grid of " + grid + why) << programs;
    EXPECT_EQ(r.out, "");
  }
}

TEST(silent_inputs, kernel_real_arguments_must_be_finite) {
  for (const char* v : {"inf", "-inf", "nan", "1e999"}) {
    const auto r = run_kernbench(std::string("run --kernel layernorm --verify --arg eps=") + v);
    EXPECT_EQ(r.exit_code, 2) << v;
    EXPECT_EQ(r.err, std::string("kernbench: error: --arg eps=") + v +
                       ": expected a finite number (kernel layernorm)\n")
      << v;
  }
}

TEST(silent_inputs, layernorm_needs_a_positive_eps) {
  for (const char* v : {"-1", "0"}) {
    const auto r = run_kernbench(std::string("run --kernel layernorm --verify --arg eps=") + v);
    EXPECT_EQ(r.exit_code, 2) << v;
    EXPECT_EQ(r.err, std::string("kernbench: error: --arg eps=") + v +
                       ": kernel layernorm needs eps above 0 (it is added to the variance "
                       "under a square root)\n")
      << v;
  }
  const auto ok = run_kernbench("run --kernel layernorm --verify --arg eps=1e-3");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(silent_inputs, an_input_that_is_no_regular_file_is_refused_by_name) {
  const std::string dir = test::temp_dir("silent_inputs_dir");
  // A directory failed with "basic_filebuf::underflow error".
  auto r = run_kernbench("run --kernel eltwise_chain --input x=" + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: " + dir + ": not a usable .npy file: it is a directory\n");
  // A FIFO (as /dev/zero, a device) was read until memory ran out; one made
  // here, with nothing writing to it, must not even be opened.
  const std::string fifo = dir + "/x.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  r = run_kernbench("run --kernel eltwise_chain --input x=" + fifo);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: " + fifo +
                     ": not a usable .npy file: it is not a regular file (a device, FIFO or "
                     "socket)\n");
}

TEST(silent_inputs, an_input_larger_than_its_header_says_is_refused_before_it_is_read) {
  // A valid header for 2x2 f32 followed by far more than 16 data bytes: the
  // size is checked against the header, the data is never read.
  const std::string dir = test::temp_dir("silent_inputs_size");
  const std::string path = dir + "/big.npy";
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  header.resize(128 - 10 - 1, ' '); // header and prefix padded to 128 bytes
  header += '\n';
  {
    std::ofstream f(path, std::ios::binary);
    f.write("\x93NUMPY\x01\x00", 8);
    const char len[2] = {static_cast<char>(header.size()), 0};
    f.write(len, 2);
    f << header;
  }
  std::filesystem::resize_file(path, 128 + (uint64_t{1} << 30)); // sparse: 1 GiB of zeros
  const auto r = run_kernbench("run --kernel eltwise_chain --input x=" + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: " + path +
                     ": not a usable .npy file: shape (2, 2) of <f4 needs 16 data bytes, the "
                     "file holds 1073741824\n");
}

TEST(silent_inputs, a_device_is_no_configuration_document) {
  // Through a link of our own to /dev/zero (read until memory ran out).
  const std::string dir = test::temp_dir("silent_inputs_device");
  const std::string zero = dir + "/machine.yaml";
  std::filesystem::create_symlink("/dev/zero", zero);
  for (const std::string& args : {"run --topology " + zero, "schedule " + zero}) {
    const auto r = run_kernbench(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(zero + ": is a device, not a file"), std::string::npos)
      << args << ": " << r.err;
  }
}

TEST(silent_inputs, a_topology_may_come_through_a_pipe) {
  // `--topology <(make_machine)` reads a FIFO: bounded, but allowed.
  const std::string dir = test::temp_dir("silent_inputs_pipe");
  const std::string fifo = dir + "/machine.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text = test::slurp(test::source_dir() + "/config/topology.yaml");
  ASSERT_FALSE(text.empty());
  std::thread writer([&] {
    std::ofstream f(fifo, std::ios::binary);
    f << text;
  });
  const auto r = run_kernbench("run --topology " + fifo + " --M 128 --K 128 --N 128");
  // Had kernbench not read it all, the writer would wait forever: drain.
  if (const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK); fd >= 0) {
    ::fcntl(fd, F_SETFL, 0);
    char buf[4096];
    while (::read(fd, buf, sizeof buf) > 0) {
    }
    ::close(fd);
  }
  writer.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nengine: "), std::string::npos);
}

TEST(silent_inputs, sweep_points_never_share_an_output_path) {
  const std::string dir = test::temp_dir("silent_inputs_sweep");
  const std::string csv = " --csv " + dir + "/s.csv --quiet";
  // Both points wrote one stream at once.
  auto r = run_kernbench("sweep --param M=128,256" + csv + " -- --K 128 --N 128 --trace-stream " +
                         dir + "/t.stream");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --trace-stream after --: every one of the 2 points would "
                   "write the same file; sweep it instead (--param trace-stream=PATH1,PATH2,...) "
                   "or run the point alone\n");
  r = run_kernbench("sweep --param M=128,256" + csv + " -- --K 128 --N 128 --dump-tensors " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--dump-tensors after --: every one of the 2 points would write the same "
                       "folder"),
            std::string::npos)
    << r.err;
  // Swept, but crossed with another axis: two points per path.
  r = run_kernbench("sweep --param M=128,256 --param trace-stream=" + dir + "/a," + dir + "/b" +
                    csv + " -- --K 128 --N 128");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kernbench: error: --param trace-stream: 2 points would write each path; "
                   "every point needs its own (sweep --trace-stream alone, one path per point)\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/a"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.csv"));
  // One path per point is fine.
  r = run_kernbench("sweep --param trace-stream=" + dir + "/a," + dir + "/b" + csv +
                    " -- --M 128 --K 128 --N 128");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/a"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/b"));
}

TEST(silent_inputs, a_trace_joined_with_itself_is_refused_not_counted_twice) {
  const std::string dir = test::temp_dir("silent_inputs_trace");
  const std::string run = "run --M 128 --K 128 --N 128 --quiet ";
  ASSERT_EQ(run_kernbench(run + "--trace-stream " + dir + "/t.stream").exit_code, 0);
  ASSERT_EQ(run_kernbench(run + "--trace " + dir + "/t.trace").exit_code, 0);
  for (const char* name : {"t.stream", "t.trace"}) {
    const std::string one = dir + "/" + name, two = dir + "/twice." + name;
    const std::string bytes = test::slurp(one);
    ASSERT_FALSE(bytes.empty()) << name;
    std::ofstream(two, std::ios::binary) << bytes << bytes;
    const auto good = run_kernbench("trace stats " + one);
    EXPECT_EQ(good.exit_code, 0) << good.err;
    // The units' stages and events (20), the M_CPU's kernel slice (2), and
    // the HBM's spans serving the one tile's reads of A and B and its write
    // of C (3).
    EXPECT_EQ(good.out.substr(0, good.out.find(',')), "trace: 25 records") << name;
    const auto r = run_kernbench("trace stats " + two);
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_NE(r.err.find("two traces joined into one file?"), std::string::npos)
      << name << ": " << r.err;
    EXPECT_EQ(r.out, "") << name;
  }
}

} // namespace
} // namespace kb
