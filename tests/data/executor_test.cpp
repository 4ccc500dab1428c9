// Phase 2 replay: results, batching, determinism across worker counts, errors.

#include "runtime/data/executor.hpp"

#include "op_builders.hpp"
#include "runtime/data/oplog_stream.hpp"
#include "test_files.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace kb {
namespace {

using test::gemm_op;
using test::math_op;
using test::memory_op;
using ::testing::StartsWith;

tensor_view f32(uint64_t at, uint32_t rows, uint32_t cols) {
  return packed_view(at, rows, cols, dtype::f32);
}

replay_options with_workers(unsigned n) {
  replay_options o;
  o.workers = n;
  return o;
}

std::string error_of(const std::vector<op_record>& ops, const replay_options& o) {
  memory_image m;
  try {
    replay(ops, m, o);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(executor, a_small_pipeline_computes_what_the_ops_say) {
  // HBM a, b (f32) -> TCM as f16 -> gemm -> relu -> back to HBM as f32.
  memory_image m;
  store_f32(m, f32(0, 2, 2), std::vector<float>{1, -2, 3, 4});
  store_f32(m, f32(16, 2, 2), std::vector<float>{1, 0, 0, -1});
  const auto ta = packed_view(0x1000, 2, 2, dtype::f16), tb = packed_view(0x1008, 2, 2, dtype::f16);
  const auto tc = f32(0x1010, 2, 2);
  const std::vector<op_record> ops{
    memory_op(1, 0, f32(0, 2, 2), ta), memory_op(2, 0, f32(16, 2, 2), tb),
    gemm_op(3, 10, ta, tb, tc), math_op(4, 20, math_fn::relu, {tc}, tc),
    memory_op(5, 30, tc, f32(64, 2, 2))};
  const auto stats = replay(ops, m, with_workers(2));
  // a * diag(1, -1) = [[1, 2], [3, -4]]; relu -> [[1, 2], [3, 0]].
  EXPECT_EQ(load_f32(m, f32(64, 2, 2)), (std::vector<float>{1, 2, 3, 0}));
  EXPECT_EQ(stats.ops, 5u);
  EXPECT_EQ(stats.flops, 16u + 4u); // the gemm 2*2*2*2, relu 4
  EXPECT_EQ(stats.batches, 5u); // the two copies, one to each idle worker; then a chain of 3
}

std::vector<op_record> independent_exps(size_t n, uint32_t side, uint64_t base) {
  std::vector<op_record> ops;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t at = base + i * 2 * side * side * 4;
    ops.push_back(math_op(base + i, 0, math_fn::exp, {f32(at, side, side)},
                          f32(at + side * side * 4, side, side)));
  }
  return ops;
}

TEST(executor, ready_ops_of_one_shape_are_shared_out_in_batches) {
  const auto ops = independent_exps(8, 2, 0);
  memory_image m;
  EXPECT_EQ(replay(ops, m, with_workers(2)).batches, 2u); // 4 + 4
  EXPECT_EQ(replay(ops, m, with_workers(1)).batches, 1u); // all 8
  auto small = with_workers(1);
  small.max_batch = 3;
  EXPECT_EQ(replay(ops, m, small).batches, 3u); // 3 + 3 + 2
  auto mixed = independent_exps(4, 2, 0);
  for (auto& r : independent_exps(4, 4, 0x10000))
    mixed.push_back(r);
  EXPECT_EQ(replay(mixed, m, with_workers(1)).batches, 2u); // one per shape
}

/// A random log over a small region, so ops conflict a lot: strided tiles of
/// an 8x8 f32 matrix whose rows interleave, packed tiles of mixed dtypes,
/// gemm with accumulate and transposes, broadcasts, reductions into strided columns, casts,
/// explicit deps, t_start out of vector order with ties.
std::vector<op_record> random_log(size_t n, uint32_t seed, memory_image& m) {
  std::mt19937 rng(seed);
  auto pick = [&](size_t k) { return static_cast<size_t>(rng() % k); };
  std::vector<tensor_view> tiles;
  for (uint32_t r = 0; r < 2; ++r) // the 8x8 f32 matrix at 0, row stride 32
    for (uint32_t c = 0; c < 2; ++c)
      tiles.push_back({uint64_t{r} * 4 * 32 + c * 16, 4, 4, 32, dtype::f32});
  const dtype types[] = {dtype::f32, dtype::f16, dtype::bf16, dtype::f32, dtype::f16, dtype::f32};
  for (size_t i = 0; i < 6; ++i)
    tiles.push_back(packed_view(1024 + i * 64, 4, 4, types[i]));
  std::uniform_real_distribution<float> val(-1.0f, 1.0f);
  for (const auto& t : tiles) {
    std::vector<float> x(16);
    for (auto& v : x)
      v = val(rng);
    store_f32(m, t, x);
  }
  const tensor_view ints = packed_view(2048, 4, 4, dtype::i8);
  std::vector<op_record> ops;
  const math_fn unary[] = {math_fn::exp, math_fn::tanh, math_fn::neg, math_fn::abs, math_fn::relu,
                           math_fn::scale};
  const math_fn binary[] = {math_fn::add, math_fn::sub, math_fn::mul, math_fn::max, math_fn::min};
  for (size_t i = 0; i < n; ++i) {
    const uint64_t t = i / 3 * 10 + pick(15); // ties and local disorder
    const auto& a = tiles[pick(tiles.size())];
    const auto& b = tiles[pick(tiles.size())];
    const auto& out = tiles[pick(tiles.size())];
    op_record r;
    switch (pick(6)) {
    case 0:
      r = memory_op(i, t, a, out);
      break;
    case 1:
      r = gemm_op(i, t, a, b, out, pick(2) == 0);
      r.op_name = "gemm";
      r.transpose_a = pick(3) == 0; // square tiles: the shapes still chain
      r.transpose_b = pick(3) == 0;
      break;
    case 2:
      r = math_op(i, t, unary[pick(6)], {a}, out);
      r.scalar = 0.5;
      break;
    case 3: { // b's first row, broadcast down
      const tensor_view row{b.address, 1, 4, b.row_stride, b.type};
      r = math_op(i, t, binary[pick(5)], {a, row}, out);
      break;
    }
    case 4: { // reduce a into out's first column (strided: 4 rows of 1)
      const tensor_view col{out.address, 4, 1, out.row_stride, out.type};
      r = math_op(i, t, pick(2) ? math_fn::sum : math_fn::row_max, {a}, col);
      break;
    }
    default:
      r = pick(2) ? math_op(i, t, math_fn::cast, {a}, ints) : math_op(i, t, math_fn::cast, {ints}, out);
    }
    if (i > 0 && pick(10) == 0)
      r.deps = {pick(i)};
    ops.push_back(r);
  }
  return ops;
}

TEST(executor, the_final_image_is_identical_for_1_2_and_4_workers) {
  memory_image initial;
  const auto ops = random_log(3000, 12, initial);
  memory_image reference = initial;
  replay_options debug;
  debug.after_each = [](const op_record&, const memory_image&) {};
  replay(ops, reference, debug); // sequential, log order
  EXPECT_FALSE(reference == initial);
  for (unsigned n : {1u, 2u, 4u}) {
    memory_image m = initial;
    const auto stats = replay(ops, m, with_workers(n));
    EXPECT_EQ(stats.ops, 3000u);
    EXPECT_TRUE(m == reference) << n << " workers";
  }
}

TEST(executor, debug_mode_calls_back_after_every_op_in_log_order) {
  memory_image m;
  store_f32(m, f32(0, 1, 1), std::vector<float>{2});
  // Vector order differs from log order: op 7 starts first.
  const std::vector<op_record> ops{math_op(8, 20, math_fn::scale, {f32(64, 1, 1)}, f32(64, 1, 1)),
                                   memory_op(7, 10, f32(0, 1, 1), f32(64, 1, 1))};
  auto o = with_workers(4);
  std::vector<std::pair<uint64_t, float>> seen;
  o.after_each = [&](const op_record& r, const memory_image& img) {
    seen.emplace_back(r.id, load_f32(img, f32(64, 1, 1))[0]);
  };
  const auto stats = replay(ops, m, o);
  // scale's scalar is 0: 2 is copied, then zeroed.
  EXPECT_EQ(seen, (std::vector<std::pair<uint64_t, float>>{{7, 2.0f}, {8, 0.0f}}));
  EXPECT_EQ(stats.batches, 2u);
}

TEST(executor, malformed_records_and_cycles_are_errors_naming_the_op) {
  auto bad = gemm_op(5, 0, f32(0, 2, 3), f32(64, 2, 2), f32(128, 2, 2));
  EXPECT_EQ(error_of({bad}, with_workers(2)),
            "phase 2: op 5 (pe0.pe_gemm gemm_f32) is malformed: gemm shapes do not chain: a 2x3 "
            "* b 2x2 -> out 2x2");
  auto w = memory_op(10, 0, f32(0, 1, 1), f32(100, 1, 1));
  w.deps = {11};
  EXPECT_THAT(error_of({w, memory_op(11, 1, f32(100, 1, 1), f32(200, 1, 1))}, with_workers(2)),
              StartsWith("dependency cycle in the op log: op 10 (pe0.dma dma) -> op 11"));
}

TEST(executor, a_failing_op_stops_the_replay_with_its_name_and_never_hangs) {
  auto ops = independent_exps(40, 2, 0);
  for (unsigned n : {1u, 3u}) {
    auto o = with_workers(n);
    o.kernel = [](const op_record& r, memory_image& img, compute_scratch& s) -> uint64_t {
      if (r.id == 17)
        throw std::runtime_error("injected fault");
      return execute(r, img, s);
    };
    EXPECT_EQ(error_of(ops, o), "phase 2: op 17 (pe0.pe_math exp) failed: injected fault");
    o.after_each = [](const op_record&, const memory_image&) {};
    EXPECT_EQ(error_of(ops, o), "phase 2: op 17 (pe0.pe_math exp) failed: injected fault");
  }
}

TEST(executor, replay_from_a_file_in_windows_matches_the_in_memory_replay) {
  memory_image initial;
  const auto ops = random_log(500, 5, initial);
  // Windows cut the log in vector order, so give it log order first.
  auto sorted = ops;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const op_record& a, const op_record& b) { return a.t_start_ps < b.t_start_ps; });
  test::temp_file f("replay.kbops");
  write_oplog(f.str(), sorted, 64);
  memory_image want = initial;
  replay(ops, want, with_workers(2));
  for (size_t window : {size_t{37}, size_t{1} << 20}) {
    memory_image m = initial;
    auto o = with_workers(2);
    o.window = window;
    const auto stats = replay(std::filesystem::path(f.str()), m, o);
    EXPECT_EQ(stats.ops, 500u);
    EXPECT_TRUE(m == want) << "window " << window;
  }
}

TEST(executor, a_file_out_of_order_beyond_the_window_is_refused) {
  test::temp_file f("disorder.kbops");
  write_oplog(f.str(), {memory_op(1, 50, f32(0, 1, 1), f32(64, 1, 1)),
                        memory_op(2, 40, f32(0, 1, 1), f32(128, 1, 1))});
  memory_image m;
  auto o = with_workers(1);
  o.window = 1;
  try {
    replay(std::filesystem::path(f.str()), m, o);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              f.str() + ": op 2 (pe0.dma dma) starts at 40 ps, before ops of an earlier window of "
                        "1 records (up to 50 ps): the log is out of t_start order by more than "
                        "the window; raise replay_options::window");
  }
  o.window = 2;
  EXPECT_EQ(replay(std::filesystem::path(f.str()), m, o).ops, 2u);
}

} // namespace
} // namespace kb
