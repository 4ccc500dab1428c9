// Dependency inference: RAW, WAW, WAR, independence, log order, explicit deps.

#include "runtime/data/dependency_graph.hpp"

#include "op_builders.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace kb {
namespace {

using test::gemm_op;
using test::math_op;
using test::memory_op;

tensor_view bytes(uint64_t at, uint32_t n) { return packed_view(at, 1, n, dtype::i8); }

std::vector<uint32_t> preds(const dependency_graph& g, uint32_t i) {
  auto p = g.preds(i);
  return {p.begin(), p.end()};
}

std::string error_of(const std::vector<op_record>& ops) {
  try {
    dependency_graph::build(ops);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(dependency_graph, a_read_of_written_bytes_waits_for_the_writer) { // RAW
  const auto g = dependency_graph::build({memory_op(0, 0, bytes(1000, 64), bytes(0, 64)),
                                          memory_op(1, 1, bytes(32, 16), bytes(2000, 16))});
  EXPECT_EQ(preds(g, 0), std::vector<uint32_t>{});
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{0});
  EXPECT_EQ(std::vector<uint32_t>(g.succs(0).begin(), g.succs(0).end()), std::vector<uint32_t>{1});
  EXPECT_EQ(g.edges(), 1u);
}

TEST(dependency_graph, overlapping_writes_keep_their_order) { // WAW
  const auto g = dependency_graph::build({memory_op(0, 0, bytes(1000, 64), bytes(0, 64)),
                                          memory_op(1, 1, bytes(3000, 10), bytes(60, 10))});
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{0});
}

TEST(dependency_graph, a_write_waits_for_earlier_readers) { // WAR
  const auto g = dependency_graph::build({memory_op(0, 0, bytes(0, 64), bytes(1000, 64)),
                                          memory_op(1, 1, bytes(3000, 10), bytes(10, 10))});
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{0});
}

TEST(dependency_graph, disjoint_ranges_and_shared_reads_are_independent) {
  const auto g = dependency_graph::build({memory_op(0, 0, bytes(0, 64), bytes(1000, 64)),
                                          memory_op(1, 0, bytes(0, 64), bytes(1064, 64)),
                                          memory_op(2, 0, bytes(64, 1), bytes(999, 1))});
  EXPECT_EQ(g.edges(), 0u); // reads after reads, byte 999 next to 1000, 64 next to 63
}

TEST(dependency_graph, edges_are_reduced_to_the_last_writer_and_its_readers) {
  // 0 and 1 write X, 2 reads X, 3 writes X: 2 waits for 1 only (1 already
  // waits for 0); 3 waits for the last writer 1 and the reader 2.
  const auto x = bytes(0, 8);
  const auto g = dependency_graph::build(
    {memory_op(0, 0, bytes(100, 8), x), memory_op(1, 1, bytes(200, 8), x),
     memory_op(2, 2, x, bytes(300, 8)), memory_op(3, 3, bytes(400, 8), x)});
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{0});
  EXPECT_EQ(preds(g, 2), std::vector<uint32_t>{1});
  EXPECT_EQ(preds(g, 3), (std::vector<uint32_t>{1, 2}));
}

TEST(dependency_graph, a_partial_overwrite_leaves_the_rest_to_the_older_writer) {
  const auto g = dependency_graph::build({memory_op(0, 0, bytes(100, 10), bytes(0, 10)),
                                          memory_op(1, 1, bytes(200, 10), bytes(5, 10)),
                                          memory_op(2, 2, bytes(0, 5), bytes(300, 5)),
                                          memory_op(3, 3, bytes(4, 2), bytes(400, 2))});
  EXPECT_EQ(preds(g, 2), std::vector<uint32_t>{0});        // bytes 0..4: op 0's
  EXPECT_EQ(preds(g, 3), (std::vector<uint32_t>{0, 1}));   // byte 4 of 0, byte 5 of 1
}

TEST(dependency_graph, ops_are_ordered_by_t_start_then_position) {
  const auto x = bytes(0, 8);
  // Index 0 starts later (t 10) than index 1 (t 5): 1 reads X first, 0 overwrites it.
  const auto g = dependency_graph::build({memory_op(0, 10, bytes(100, 8), x),
                                          memory_op(1, 5, x, bytes(200, 8)),
                                          memory_op(2, 10, bytes(300, 8), x)});
  EXPECT_EQ(g.order(), (std::vector<uint32_t>{1, 0, 2}));
  EXPECT_EQ(preds(g, 0), std::vector<uint32_t>{1}); // WAR
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{});
  EXPECT_EQ(preds(g, 2), std::vector<uint32_t>{0}); // same t: given order, WAW
}

TEST(dependency_graph, accumulating_gemms_chain_on_their_output) {
  const auto a = packed_view(0, 2, 2, dtype::f32), b = packed_view(64, 2, 2, dtype::f32);
  const auto c = packed_view(128, 2, 2, dtype::f32);
  const auto g = dependency_graph::build({gemm_op(0, 0, a, b, c), gemm_op(1, 0, a, b, c, true),
                                          gemm_op(2, 0, a, b, c, true)});
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{0});
  EXPECT_EQ(preds(g, 2), std::vector<uint32_t>{1});
}

TEST(dependency_graph, tiles_whose_rows_interleave_are_independent) {
  // Two 4-row views of 16-byte rows, 32 bytes apart, offset by 16: the rows
  // interleave, the bounding spans [0,112) and [16,128) overlap.
  const tensor_view even{0, 4, 4, 32, dtype::f32}, odd{16, 4, 4, 32, dtype::f32};
  const std::vector<op_record> ops{memory_op(0, 0, bytes(1000, 64), even),
                                   memory_op(1, 1, packed_view(3000, 4, 4, dtype::f32), odd),
                                   memory_op(2, 2, odd, bytes(5000, 64)),
                                   memory_op(3, 3, bytes(6000, 64), even)};
  const auto g = dependency_graph::build(ops);
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{});  // no WAW with 0
  EXPECT_EQ(preds(g, 2), std::vector<uint32_t>{1});  // RAW on odd only
  EXPECT_EQ(preds(g, 3), std::vector<uint32_t>{0});  // WAW on even, no WAR with 2
}

TEST(dependency_graph, views_of_different_strides_are_checked_row_by_row_or_conservatively) {
  // Rows [0,16) [32,48) [64,80) [96,112) against [16,32) [80,96): disjoint.
  const tensor_view x{0, 4, 16, 32, dtype::i8}, y{16, 2, 16, 64, dtype::i8};
  const std::vector<op_record> ops{memory_op(0, 0, bytes(1000, 64), x),
                                   memory_op(1, 1, bytes(2000, 32), y)};
  EXPECT_EQ(dependency_graph::build(ops).edges(), 0u);
  // With fewer row checks allowed than the shorter view's 2 rows: by span.
  EXPECT_EQ(preds(dependency_graph::build(ops, {.max_row_checks = 1}), 1),
            std::vector<uint32_t>{0});
}

TEST(dependency_graph, a_strided_rewrite_of_the_same_tile_supersedes_the_old_one) {
  const tensor_view t{0, 4, 4, 64, dtype::f32};
  const auto g = dependency_graph::build(
    {memory_op(0, 0, bytes(1000, 64), t), memory_op(1, 1, bytes(2000, 64), t),
     memory_op(2, 2, t, bytes(3000, 64))});
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{0});
  EXPECT_EQ(preds(g, 2), std::vector<uint32_t>{1}); // not 0: 1 covered it
}

TEST(dependency_graph, whole_matrix_accesses_meet_exactly_the_tiles_they_touch) {
  // An 8x8 i8 matrix at 0 (row stride 8) in 4x4 tiles; a contiguous write of
  // the whole, tile writes, a contiguous read of row 5, a strided read of
  // the gap between two tile columns' rows elsewhere.
  auto tile = [](uint64_t r, uint64_t c) { return tensor_view{r * 32 + c * 4, 4, 4, 8, dtype::i8}; };
  const auto g = dependency_graph::build({
    memory_op(0, 0, bytes(1000, 64), bytes(0, 64)),        // the whole matrix
    memory_op(1, 1, bytes(2000, 16), tile(0, 1)),          // RAW? no: WAW on 0
    memory_op(2, 2, bytes(40, 8), bytes(3000, 8)),         // row 5: tiles (1,0) and (1,1), op 0
    memory_op(3, 3, bytes(4000, 16), tile(1, 1)),          // WAW 0, WAR 2
    memory_op(4, 4, bytes(4, 4), bytes(5000, 4)),          // row 0 of tile (0,1): op 1 only
    memory_op(5, 5, bytes(5100, 16), tensor_view{64, 2, 4, 8, dtype::i8}), // past the matrix
  });
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{0});
  EXPECT_EQ(preds(g, 2), std::vector<uint32_t>{0});
  EXPECT_EQ(preds(g, 3), (std::vector<uint32_t>{0, 2}));
  // Op 1 rewrote these bytes after op 0; the edge to op 0 stays (a strided
  // write does not prune the byte map): redundant, and a true conflict.
  EXPECT_EQ(preds(g, 4), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(preds(g, 5), std::vector<uint32_t>{});
}

TEST(dependency_graph, misaligned_and_wrapping_tiles_of_one_stride_meet_where_bytes_do) {
  // Stride 32. A: rows of 16 bytes at column 0; B: 16 bytes at column 8
  // (meets A); C: column 24, 16 bytes, wrapping into the next row's columns
  // 0..7 (meets A's next row); D: column 16, 8 bytes (meets B only).
  const tensor_view a{0, 2, 16, 32, dtype::i8}, b{8, 2, 16, 32, dtype::i8};
  const tensor_view c{24, 2, 16, 32, dtype::i8}, d{16, 2, 8, 32, dtype::i8};
  const auto g = dependency_graph::build({memory_op(0, 0, bytes(1000, 32), a),
                                          memory_op(1, 1, bytes(2000, 32), b),
                                          memory_op(2, 2, bytes(3000, 32), c),
                                          memory_op(3, 3, bytes(4000, 16), d),
                                          memory_op(4, 4, bytes(32, 4), bytes(5000, 4))});
  EXPECT_EQ(preds(g, 1), std::vector<uint32_t>{0});
  // C's rows [24,40) [56,72) meet A's [32,48), not B's [8,24) [40,56).
  EXPECT_EQ(preds(g, 2), std::vector<uint32_t>{0});
  EXPECT_EQ(preds(g, 3), std::vector<uint32_t>{1});
  // Bytes 32..35: C wrote them last (its first row spills into them); A's
  // edge stays (another band): redundant, and a true conflict.
  EXPECT_EQ(preds(g, 4), (std::vector<uint32_t>{0, 2}));
}

TEST(dependency_graph, explicit_deps_add_edges_and_bad_ones_are_named) {
  auto later = memory_op(1, 1, bytes(500, 8), bytes(600, 8));
  later.deps = {7};
  auto first = memory_op(7, 0, bytes(0, 8), bytes(100, 8));
  EXPECT_EQ(preds(dependency_graph::build({first, later}), 1), std::vector<uint32_t>{0});

  later.deps = {99};
  EXPECT_EQ(error_of({first, later}),
            "op 1 (pe0.dma dma) depends on op id 99, which is not in the log");
  later.deps = {1};
  EXPECT_EQ(error_of({first, later}), "op 1 (pe0.dma dma) lists itself as a dependency");
  EXPECT_EQ(error_of({first, memory_op(7, 3, bytes(0, 1), bytes(9000, 1), "pe1.dma")}),
            "two ops of the log have id 7: op 7 (pe0.dma dma) and op 7 (pe1.dma dma)");
}

TEST(dependency_graph, a_cycle_through_explicit_deps_is_named) {
  // 1 reads what 0 writes (RAW), but 0 says it depends on 1.
  auto w = memory_op(10, 0, bytes(0, 8), bytes(100, 8));
  w.deps = {11};
  const auto r = memory_op(11, 1, bytes(100, 8), bytes(200, 8));
  EXPECT_EQ(error_of({w, r}), "dependency cycle in the op log: op 10 (pe0.dma dma) -> op 11 "
                              "(pe0.dma dma) -> op 10 (pe0.dma dma) (each waits for the next)");
}

TEST(dependency_graph, a_million_strided_tiles_of_a_wide_matrix_build_fast) {
  // 32x32 f32 tiles of a matrix 256 tiles wide: every tile's span overlaps
  // the spans of its whole tile row. Copied tile for tile into a second matrix.
  const uint64_t tiles = 256, w = tiles * 32 * 4, n = 1'000'000;
  std::vector<op_record> ops;
  ops.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t at = i / tiles * 32 * w + i % tiles * 128;
    ops.push_back(memory_op(i, i, tensor_view{at, 32, 32, w, dtype::f32},
                            tensor_view{(uint64_t{1} << 40) + at, 32, 32, w, dtype::f32}));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto g = dependency_graph::build(ops);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(g.edges(), 0u);
  EXPECT_LT(s, 30.0) << "a quadratic build would take hours";
  std::printf("1M strided tiles, 256 per matrix row: dependency graph built in %.2f s\n", s);
}

TEST(dependency_graph, a_million_disjoint_tiles_build_fast_and_independent) {
  std::vector<op_record> ops;
  const size_t n = 1'000'000;
  ops.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t at = uint64_t{i} * 512;
    ops.push_back(math_op(i, i / 64, math_fn::exp, {packed_view(at, 8, 8, dtype::f32)},
                          packed_view(at + 256, 8, 8, dtype::f32)));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto g = dependency_graph::build(ops);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(g.size(), n);
  EXPECT_EQ(g.edges(), 0u);
  EXPECT_LT(s, 30.0) << "a quadratic build would take hours";
  std::printf("1M disjoint ops: dependency graph built in %.2f s\n", s);
}

} // namespace
} // namespace kb
