// Phase 2 GEMM throughput (seed ADR-0020 D6): replaying a tiled GEMM op log
// against one Eigen matmul of the same total work, side by side.
//
// The log multiplies two N x N matrices in T x T x T tiles: for every output
// tile (i, j) and every k, one gemm op reads the strided tiles A(i, k) and
// B(k, j) of the row-major matrices in the image and accumulates into C(i, j)
// (k = 0 writes, k > 0 accumulates: a chain of N/T ops per output tile). The
// replay time counts everything replay() does: checking the records,
// building the dependency graph, touching pages, the actor group, loads,
// Eigen products, dtype conversion and stores. The yardstick is one
// single-threaded Eigen f32 product of the same two N x N matrices (the f16
// values widened to f32 for the f16 run; Eigen has no fast f16 product).
//
//   phase2_speed [--size N] [--tile T] [--workers W] [--reps R]
//
// Prints GFLOP/s (2 N^3 / seconds) of each, and the ratio replay / Eigen for
// 1 worker (like for like: one thread each) and for W workers. The three are
// run interleaved, best of R rounds.

#include "runtime/data/executor.hpp"
#include "runtime/data/verify.hpp"

#include <Eigen/Core>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>

namespace {

struct args {
  uint32_t size = 1024;
  uint32_t tile = 128;
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  int reps = 3;
};

args parse(int argc, char** argv) {
  args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc)
      throw std::invalid_argument("missing value after " + k);
    const unsigned long v = std::strtoul(argv[++i], nullptr, 10);
    if (k == "--size")
      a.size = static_cast<uint32_t>(v);
    else if (k == "--tile")
      a.tile = static_cast<uint32_t>(v);
    else if (k == "--workers")
      a.workers = static_cast<unsigned>(v);
    else if (k == "--reps")
      a.reps = static_cast<int>(v);
    else
      throw std::invalid_argument("unknown option " + k +
                                  " (known: --size, --tile, --workers, --reps)");
  }
  if (a.tile == 0 || a.size % a.tile != 0)
    throw std::invalid_argument("--size must be a multiple of --tile");
  return a;
}

using matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct problem {
  kb::memory_image image;
  std::vector<kb::op_record> ops;
  matrix a, b; // the values the image holds, as f32
  kb::tensor_view c;
};

problem make_problem(const args& x, kb::dtype t) {
  const uint32_t n = x.size, tt = x.tile, tiles = n / tt;
  const uint64_t e = kb::dtype_bytes(t), row = uint64_t{n} * e, bytes = row * n;
  const uint64_t base_a = 0, base_b = bytes, base_c = 2 * bytes;
  problem p;
  std::mt19937 rng(2024);
  std::uniform_real_distribution<float> val(-1.0f, 1.0f);
  std::vector<float> va(uint64_t{n} * n), vb(uint64_t{n} * n);
  for (auto& v : va)
    v = val(rng);
  for (auto& v : vb)
    v = val(rng);
  const auto whole = [&](uint64_t at) { return kb::packed_view(at, n, n, t); };
  kb::store_f32(p.image, whole(base_a), va);
  kb::store_f32(p.image, whole(base_b), vb);
  // Read back: for f16 these are the rounded values the replay multiplies.
  va = kb::load_f32(p.image, whole(base_a));
  vb = kb::load_f32(p.image, whole(base_b));
  p.a = Eigen::Map<matrix>(va.data(), n, n);
  p.b = Eigen::Map<matrix>(vb.data(), n, n);
  p.c = whole(base_c);
  auto tile = [&](uint64_t base, uint32_t r, uint32_t c) {
    return kb::tensor_view{base + uint64_t{r} * tt * row + uint64_t{c} * tt * e, tt, tt, row, t};
  };
  uint64_t id = 0;
  for (uint32_t k = 0; k < tiles; ++k)
    for (uint32_t i = 0; i < tiles; ++i)
      for (uint32_t j = 0; j < tiles; ++j) {
        kb::op_record r;
        r.id = id++;
        r.t_start_ps = uint64_t{k} * 1000;
        r.t_end_ps = r.t_start_ps + 900;
        r.component = fmt::format("pe{}.pe_gemm", (i * tiles + j) % 16);
        r.kind = kb::op_kind::gemm;
        r.op_name = fmt::format("gemm_{}", kb::to_string(t));
        r.inputs = {tile(base_a, i, k), tile(base_b, k, j)};
        r.out = tile(base_c, i, j);
        r.accumulate = k > 0;
        p.ops.push_back(std::move(r));
      }
  return p;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run(const args& x, kb::dtype t) {
  const double flop = 2.0 * x.size * x.size * x.size;
  problem p = make_problem(x, t);

  // Interleaved (Eigen, 1 worker, W workers, Eigen, ...) so that a change of
  // machine load hits all three alike; best of each.
  double eigen_best = 1e30, one = 1e30, many = 1e30;
  matrix ref(x.size, x.size);
  kb::memory_image result;
  kb::replay_stats st1, stn;
  auto replay_once = [&](unsigned workers, double& best, kb::replay_stats& st, bool keep) {
    kb::memory_image m = p.image;
    kb::replay_options o;
    o.workers = workers;
    st = kb::replay(p.ops, m, o);
    best = std::min(best, st.seconds);
    if (keep)
      result = std::move(m);
  };
  for (int r = 0; r < x.reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    ref.noalias() = p.a * p.b;
    eigen_best = std::min(eigen_best, seconds_since(t0));
    replay_once(1, one, st1, r == 0);
    replay_once(x.workers, many, stn, false);
  }

  const std::vector<double> want(ref.data(), ref.data() + ref.size());
  const auto check = kb::verify(result, p.c, want, "c");

  const double g_eigen = flop / eigen_best / 1e9;
  const double g_one = flop / one / 1e9;
  const double g_many = flop / many / 1e9;
  fmt::print("{}: {}^3 in {}^3 tiles, {} gemm ops, {} accumulate steps per output tile\n",
             kb::to_string(t), x.size, x.tile, p.ops.size(), x.size / x.tile);
  fmt::print("  Eigen, one {}x{} f32 product, 1 thread : {:8.3f} s  {:7.2f} GFLOP/s\n", x.size,
             x.size, eigen_best, g_eigen);
  fmt::print("  Phase 2 replay, 1 worker               : {:8.3f} s  {:7.2f} GFLOP/s  ratio {:.2f}x"
             "  ({} batches)\n",
             one, g_one, g_one / g_eigen, st1.batches);
  fmt::print("  Phase 2 replay, {} workers              : {:8.3f} s  {:7.2f} GFLOP/s  ratio {:.2f}x"
             "  ({} batches)\n",
             x.workers, many, g_many, g_many / g_eigen, stn.batches);
  // Informative only: the replay sums k in tiles (and rounds C to f16 after
  // each k step in the f16 run), Eigen in its own blocks, so elements with
  // much cancellation over K = N terms can differ beyond the D11 tolerance.
  fmt::print("  agreement with Eigen: max |diff| {:.3g}; {}\n", check.max_abs_error,
             check.describe());
}

} // namespace

int main(int argc, char** argv) {
  try {
    const args x = parse(argc, argv);
    fmt::print("phase2_speed: best of {} runs, {} hardware threads, Eigen {}.{}.{} (SIMD: {})\n",
               x.reps, std::thread::hardware_concurrency(), EIGEN_WORLD_VERSION,
               EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION, Eigen::SimdInstructionSetsInUse());
    run(x, kb::dtype::f32);
    run(x, kb::dtype::f16);
  } catch (const std::exception& e) {
    fmt::print(stderr, "phase2_speed: {}\n", e.what());
    return 1;
  }
  return 0;
}
