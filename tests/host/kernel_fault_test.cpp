// Per-tile replay catches a tiling error (issue 12): the op log of a GEMM
// with ragged edges replays to the right C; the same log with the edge
// tile's store one row short (the off-by-one a tiling bug makes) fails
// verification, naming the first element that tile should have written.

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/data/dtype_convert.hpp"
#include "runtime/data/npy.hpp"
#include "runtime/data/oplog_stream.hpp"
#include "runtime/host/kernel_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace kb {
namespace {

const std::string src = KB_HOST_TEST_SOURCE_DIR;

topology_spec default_machine() {
  return load_topology(src + "/config/topology.yaml",
                       builtin_kinds().catalog());
}

/// The image the host deployed, rebuilt from the dumped inputs.
memory_image deployed(const kernel_run_result& r, const std::string& dir) {
  memory_image m;
  for (const auto& [name, p] : r.tensors) {
    if (name == "c")
      continue;
    const npy_array a = read_npy(dir + "/" + name + ".npy");
    const std::vector<float> v = to_f32(a);
    std::vector<uint8_t> bytes(v.size() * dtype_bytes(p.type));
    encode_f32(p.type, v, bytes);
    m.write(p.address, bytes);
  }
  return m;
}

TEST(kernel_fault, an_off_by_one_edge_tile_fails_verification_at_its_first_lost_element) {
  // M = 100 rows in 32-row tiles: the edge tiles hold rows 96..99.
  const std::string dir = (std::filesystem::temp_directory_path() / "kb_kernel_fault").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const kernel_def& def = find_kernel("gemm");
  const kernel_args args(def.name, def.args,
                         {{"M", "100"}, {"K", "70"}, {"N", "40"}, {"block_m", "100"},
                          {"tile", "32"}, {"dtype", "f32"}});
  kernel_run_options o;
  o.data.verify = true;
  o.data.dump_dir = dir;
  o.data.oplog = dir + "/gemm.oplog";
  const kernel_run_result r = run_kernel(default_machine(), def, args, o);
  ASSERT_EQ(r.run.error, "");
  ASSERT_EQ(r.data.verdicts.size(), 1u);
  ASSERT_TRUE(r.data.verdicts[0].ok) << r.data.verdicts[0].describe();
  const std::vector<float> c_f32 = to_f32(read_npy(dir + "/c.npy"));
  const std::vector<double> expected(c_f32.begin(), c_f32.end());

  std::vector<op_record> log = read_oplog(o.data.oplog);
  // The good log replays to the same C again.
  {
    memory_image m = deployed(r, dir);
    replay(log, m);
    EXPECT_TRUE(verify(m, packed_view(r.tensors[2].second.address, 100, 40, dtype::f32), expected,
                       "c")
                  .ok);
  }
  // The DMA write of the bottom-left edge tile (rows 96..99, columns 0..31):
  // one row short.
  const uint64_t c0 = r.tensors[2].second.address;
  auto edge = std::find_if(log.begin(), log.end(), [&](const op_record& op) {
    return op.op_name == "dma_write" && op.out.address == c0 + 96 * 40 * 4;
  });
  ASSERT_NE(edge, log.end());
  ASSERT_EQ(edge->out.rows, 4u);
  ASSERT_EQ(edge->out.cols, 32u);
  edge->out.rows = 3;
  edge->inputs[0].rows = 3;
  memory_image m = deployed(r, dir);
  replay(log, m);
  const verify_result v =
    verify(m, packed_view(c0, 100, 40, dtype::f32), expected, "c");
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first.row, 99u);
  EXPECT_EQ(v.first.col, 0u);
  EXPECT_EQ(v.mismatches, 32u); // row 99, columns 0..31, stayed zero
  EXPECT_EQ(v.first.got, 0.0);
  EXPECT_NE(v.describe().find("c[99,0] = 0, expected"), std::string::npos) << v.describe();
}

} // namespace
} // namespace kb
