// Trace files: what is written reads back; a crafted file is an error, not
// an allocation without bound.

#include "runtime/trace/trace_file.hpp"
#include "tests/cli/cli_support.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kb {
namespace {

TEST(trace_file, a_written_trace_reads_back_from_file_and_bytes) {
  const std::vector<std::string> names{"sip0.cube0.pe0.pe_dma", "sip0.cube0.pe0.pe_gemm"};
  trace_record r{};
  r.kind = trace_kind::engine_start;
  r.t = SimTime{1234};
  r.node = 1;
  r.seq = 7;
  r.tag.bytes = 4096;
  const std::string path = test::temp_dir("trace_rt") + "/t.capnp";
  write_trace_capnp(path, names, {r});
  std::vector<std::string> n1, n2;
  std::vector<trace_record> r1, r2;
  read_trace_capnp(path, n1, r1);
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  read_trace_bytes(bytes.str(), path, n2, r2);
  for (const auto* got : {&n1, &n2})
    EXPECT_EQ(*got, names);
  for (const auto* got : {&r1, &r2}) {
    ASSERT_EQ(got->size(), 1u);
    EXPECT_EQ((*got)[0].t, SimTime{1234});
    EXPECT_EQ((*got)[0].node, 1u);
    EXPECT_EQ((*got)[0].seq, 7u);
    EXPECT_EQ((*got)[0].tag.bytes, 4096u);
  }
}

TEST(trace_file, a_list_of_2_to_the_29_empty_records_in_40_bytes_is_refused) {
  // Segment table (1 segment of 4 words); root struct (0 data, 2 pointers);
  // nodes: null; records: an inline-composite list of 2^29 - 1 structs of
  // size 0, which takes no space. Read with a traversal limit of 2^40
  // words this asked for 2^29 records (~30 GB).
  const uint64_t words[] = {uint64_t{4} << 32, uint64_t{2} << 48, 0,
                            1 | (uint64_t{7} << 32), ((uint64_t{1} << 29) - 1) << 2};
  std::string bytes(sizeof words, '\0');
  std::memcpy(bytes.data(), words, sizeof words);
  std::vector<std::string> names;
  std::vector<trace_record> records;
  try {
    read_trace_bytes(bytes, "crafted", names, records);
    FAIL() << "read " << records.size() << " records";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("'crafted' is not a kernbench trace file (Cap'n Proto cannot "
                                         "read it: ",
                                         0),
              0u)
      << e.what();
  }
}

TEST(trace_file, a_json_trace_is_called_json_not_a_cap_n_proto_error) {
  // It said "expected segmentCount < 512 [...]; Message has too many segments".
  const std::string dir = test::temp_dir("json_trace");
  const std::string path = dir + "/run.json";
  std::ofstream(path) << "{\"traceEvents\": []}\n";
  for (const std::string& sub : {"stats " + path, "convert " + path + " " + dir + "/out.json"}) {
    const auto r = test::run_kernbench("trace " + sub);
    EXPECT_EQ(r.exit_code, 2) << sub;
    EXPECT_EQ(r.err, "kernbench: error: '" + path + "' is Chrome/Perfetto JSON, not a kernbench "
                     "trace file: `kernbench trace` reads the Cap'n Proto traces of `run --trace "
                     "FILE` (a name not ending in .json) and `run --trace-stream FILE`\n")
      << sub;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out.json"));
}

} // namespace
} // namespace kb
