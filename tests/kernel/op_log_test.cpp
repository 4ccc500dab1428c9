// The op log sink of a run (runtime/kernel/op_log): records appended from
// several threads in any order come out of `finish` sorted by op_key, and
// the file is the same byte for byte whether the buffer held everything (no
// run file), spilled once (one run file) or spilled many times (a k-way merge).

#include "runtime/data/oplog_stream.hpp"
#include "runtime/kernel/op_log.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace kb {
namespace {

using ::testing::ThrowsMessage;

std::string temp_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) /
          ("kb_kernel_" + std::to_string(::getpid()) + "_" + name))
    .string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// `n` memory ops whose keys collide often: t_start in [0, 20), t_end in
/// t_start + [0, 3), unique ids. Returned in a scrambled order.
std::vector<op_record> scrambled_records(size_t n) {
  std::mt19937_64 rng(12345);
  std::vector<op_record> v;
  for (size_t i = 0; i < n; ++i) {
    op_record r;
    r.id = (uint64_t{i % 7} << 40) | i; // node id in the high bits, as the hook does
    r.t_start_ps = rng() % 20;
    r.t_end_ps = r.t_start_ps + rng() % 3;
    r.component = "sip0.cube0.pe" + std::to_string(i % 4) + ".pe_dma";
    r.kind = op_kind::memory;
    r.op_name = "dma_read";
    r.inputs = {packed_view(0x1000 * i, 1, 4, dtype::f32)};
    r.out = packed_view(0x100000 + 0x1000 * i, 1, 4, dtype::f32);
    v.push_back(std::move(r));
  }
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

/// Appends `records` to a log of `buffer` records from 4 threads (thread t
/// takes records t, t + 4, ...), and checks the run files seen before
/// `finish`. Returns the log file's bytes.
std::string write_log(const std::string& name, const std::vector<op_record>& records,
                      size_t buffer, size_t expect_runs) {
  const std::string path = temp_path(name);
  op_log log(path, buffer);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = t; i < records.size(); i += 4)
        log.append(records[i]);
    });
  for (auto& t : threads)
    t.join();
  for (size_t i = 0; i < expect_runs; ++i)
    EXPECT_TRUE(std::filesystem::exists(path + ".run" + std::to_string(i))) << i;
  EXPECT_FALSE(std::filesystem::exists(path + ".run" + std::to_string(expect_runs)));
  EXPECT_EQ(log.finish(), records.size());
  // The run files are gone once merged.
  EXPECT_FALSE(std::filesystem::exists(path + ".run0"));
  const std::string bytes = slurp(path);
  std::filesystem::remove(path);
  return bytes;
}

TEST(OpLog, RecordsFromSeveralThreadsComeOutInOpKeyOrder) {
  const auto records = scrambled_records(500);
  const std::string path = temp_path("order");
  {
    op_log log(path, 64);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (size_t i = t; i < records.size(); i += 4)
          log.append(records[i]);
      });
    for (auto& t : threads)
      t.join();
    EXPECT_EQ(log.finish(), 500u);
  }
  auto want = records;
  std::sort(want.begin(), want.end(),
            [](const op_record& a, const op_record& b) { return op_key(a) < op_key(b); });
  EXPECT_EQ(read_oplog(path), want);
  std::filesystem::remove(path);
}

TEST(OpLog, TheFileIsTheSameWithNoOneOrManyRunFiles) {
  const auto records = scrambled_records(300);
  const std::string all_in_memory = write_log("none", records, 301, 0);
  const std::string one_run = write_log("one", records, 300, 1);
  const std::string many_runs = write_log("many", records, 7, 300 / 7);
  const std::string one_record_runs = write_log("single", records, 1, 300);
  ASSERT_FALSE(all_in_memory.empty());
  EXPECT_TRUE(one_run == all_in_memory);
  EXPECT_TRUE(many_runs == all_in_memory);
  EXPECT_TRUE(one_record_runs == all_in_memory);
}

TEST(OpLog, AnEmptyLogIsAValidFileWithNoRecords) {
  const std::string path = temp_path("empty");
  op_log log(path, 8);
  EXPECT_EQ(log.finish(), 0u);
  EXPECT_TRUE(read_oplog(path).empty());
  std::filesystem::remove(path);
}

TEST(OpLog, AppendAfterFinishAndFinishingTwiceAreErrors) {
  const std::string path = temp_path("twice");
  op_log log(path, 8);
  log.append(scrambled_records(1)[0]);
  log.finish();
  EXPECT_THAT([&] { log.append(scrambled_records(1)[0]); },
              ThrowsMessage<std::logic_error>("op log: a record after the log was finished"));
  EXPECT_THAT([&] { log.finish(); }, ThrowsMessage<std::logic_error>("op log: finished twice"));
  std::filesystem::remove(path);
}

TEST(OpLog, RunFilesOfAnUnfinishedLogAreRemoved) {
  const std::string path = temp_path("unfinished");
  {
    op_log log(path, 2);
    for (const auto& r : scrambled_records(5))
      log.append(r);
    EXPECT_TRUE(std::filesystem::exists(path + ".run1"));
  }
  EXPECT_FALSE(std::filesystem::exists(path + ".run0"));
  EXPECT_FALSE(std::filesystem::exists(path + ".run1"));
}

} // namespace
} // namespace kb
