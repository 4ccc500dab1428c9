// The op log file: round trips across batches; truncated or foreign files are named errors.

#include "runtime/data/oplog_stream.hpp"

#include "op_builders.hpp"
#include "test_files.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace kb {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<op_record> sample(size_t n) {
  std::vector<op_record> ops;
  for (size_t i = 0; i < n; ++i) {
    const auto at = uint64_t{i} * 4096;
    switch (i % 3) {
    case 0:
      ops.push_back(test::memory_op(i, i * 10, packed_view(at, 8, 8, dtype::f32),
                                    tensor_view{at + 1024, 8, 8, 64, dtype::bf16},
                                    "sip0.cube" + std::to_string(i % 5) + ".dma"));
      break;
    case 1:
      ops.push_back(test::gemm_op(i, i * 10, packed_view(at, 4, 8, dtype::f16),
                                  packed_view(at + 64, 8, 4, dtype::f16),
                                  packed_view(at + 128, 4, 4, dtype::f32), true));
      ops.back().transpose_a = i % 2 == 0;
      ops.back().transpose_b = i % 4 == 1;
      break;
    default: {
      auto r = test::math_op(i, i * 10, math_fn::row_min, {packed_view(at, 4, 8, dtype::i8)},
                             packed_view(at + 64, 1, 8, dtype::i32));
      r.axis = 0;
      r.scalar = -0.25;
      r.deps = {i - 1, i - 2};
      ops.push_back(r);
    }
    }
  }
  return ops;
}

std::string error_reading(const std::string& path) {
  try {
    read_oplog(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(oplog_stream, records_round_trip_field_for_field_across_batches) {
  test::temp_file f("log.kbops");
  const auto ops = sample(7);
  write_oplog(f.str(), ops, 2); // 4 batches
  EXPECT_EQ(read_oplog(f.str()), ops);
}

TEST(oplog_stream, records_round_trip_as_bytes_and_damaged_bytes_are_refused) {
  // How a split run's processes ship their ops to rank 0 (encode_ops).
  const auto ops = sample(11);
  const std::vector<char> bytes = encode_ops(ops);
  EXPECT_EQ(bytes.size() % 8, 0u);
  EXPECT_EQ(decode_ops(bytes), ops);
  EXPECT_TRUE(decode_ops(encode_ops({})).empty());
  std::vector<char> odd = bytes;
  odd.pop_back();
  EXPECT_THAT([&] { decode_ops(odd); },
              testing::ThrowsMessage<std::invalid_argument>(
                HasSubstr("bytes of op records: not a whole number of words")));
  std::vector<char> cut(bytes.begin(), bytes.begin() + 16);
  EXPECT_THAT([&] { decode_ops(cut); },
              testing::ThrowsMessage<std::invalid_argument>(HasSubstr("damaged op records")));
}

TEST(oplog_stream, a_long_log_streams_back_in_order) {
  test::temp_file f("long.kbops");
  const auto ops = sample(10000); // 3 batches of up to 4096
  {
    oplog_writer w(f.str());
    for (const auto& r : ops)
      w.append(r);
    EXPECT_EQ(w.records(), 10000u);
    w.close();
    EXPECT_THROW(w.append(ops[0]), std::logic_error);
  }
  oplog_reader in(f.str());
  op_record r;
  size_t i = 0;
  while (in.next(r)) {
    ASSERT_EQ(r, ops[i]) << "record " << i;
    ++i;
  }
  EXPECT_EQ(i, 10000u);
  EXPECT_EQ(in.records_read(), 10000u);
  EXPECT_FALSE(in.next(r));
}

TEST(oplog_stream, threads_may_append_to_one_writer) {
  test::temp_file f("threads.kbops");
  {
    oplog_writer w(f.str(), 100);
    std::vector<std::thread> threads;
    for (uint64_t t = 0; t < 4; ++t)
      threads.emplace_back([&w, t] {
        for (uint64_t i = 0; i < 1000; ++i)
          w.append(test::memory_op(t * 1000 + i, i, packed_view(0, 1, 1, dtype::f32),
                                   packed_view(64, 1, 1, dtype::f32)));
      });
    for (auto& th : threads)
      th.join();
    w.close();
  }
  std::vector<int> seen(4000, 0);
  for_each_op(f.str(), [&](const op_record& r) { ++seen.at(r.id); });
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 4000);
}

TEST(oplog_stream, a_writer_never_closed_leaves_an_incomplete_log) {
  test::temp_file f("open.kbops");
  {
    oplog_writer w(f.str(), 2);
    for (const auto& r : sample(5))
      w.append(r); // two batches written, the fifth record still pending
  }
  std::vector<op_record> seen;
  try {
    for_each_op(f.str(), [&](const op_record& r) { seen.push_back(r); });
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              f.str() + ": damaged or incomplete op log after 4 records: the file ends without "
                        "its end marker (truncated, or the writer was not closed)");
  }
  EXPECT_EQ(seen.size(), 4u);
}

TEST(oplog_stream, a_truncated_log_is_an_error_naming_the_file) {
  test::temp_file f("cut.kbops");
  write_oplog(f.str(), sample(100));
  const auto size = std::filesystem::file_size(f.str());
  std::filesystem::resize_file(f.str(), size - 20);
  EXPECT_THAT(error_reading(f.str()),
              StartsWith(f.str() + ": damaged or incomplete op log after 0 records: "));
}

TEST(oplog_stream, a_foreign_or_missing_file_is_refused) {
  test::temp_file f("foreign.kbops");
  EXPECT_THAT(error_reading(f.str()), HasSubstr(f.str() + ": cannot read the op log: No such file"));
  std::ofstream(f.str()) << "hello, not an op log";
  EXPECT_EQ(error_reading(f.str()),
            f.str() + ": not a kernbench op log (it does not start with the \"kernbench op log 1\" "
                      "header)");
  EXPECT_THROW(oplog_writer("/nonexistent-dir/x.kbops"), std::runtime_error);
}

} // namespace
} // namespace kb
