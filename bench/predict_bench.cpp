// Wall time of the II prediction (issue 9): build the steady-state body of a
// GEMM command from the default topology's declared service times and modulo
// schedule it, as PE_SCHEDULER does once per distinct body. Prints one row
// per shape: body ops, predicted II and MII, and the best of five timings
// (or of the number of runs given).
// Set the share against `kernbench run` with the same shape (bench/README.md).
//
//   build/bench/predict_bench [runs]

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"
#include "runtime/plan/gemm_plan.hpp"
#include "runtime/predict/body_predictor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

namespace {

using namespace kb;

struct shape {
  uint32_t m, k, n, tile;
  dtype type;
  const char* name;
};

} // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const std::string dir = KB_SOURCE_DIR "/config/";
  const auto topo = load_topology(dir + "topology.yaml", builtin_kinds().catalog());
  const shape shapes[] = {
    {1024, 1024, 1024, 128, dtype::f32, "1024^3 f32"},
    {2048, 2048, 2048, 128, dtype::f16, "2048^3 f16"},
    {128, 65536, 128, 128, dtype::f16, "128x65536x128 f16"},
    {128, 1536, 128, 128, dtype::f32, "128x1536x128 f32"},
    {1024, 1024, 1024, 64, dtype::f16, "1024^3 f16 tile 64"},
    {128, 131072, 128, 128, dtype::f16, "128x131072x128 f16"},
    {64, 65536, 64, 64, dtype::f16, "64x65536x64 f16 t64"},
  };
  fmt::print("{:<22} {:>6} {:>6} {:>14} {:>14} {:>12}\n", "shape", "tiles", "ops",
             "II ns", "MII ns", "predict ms");
  for (const auto& s : shapes) {
    gemm_plan_args g;
    g.m = s.m;
    g.k = s.k;
    g.n = s.n;
    g.tile_m = g.tile_k = g.tile_n = s.tile;
    g.in_dtype = s.type;
    g.a_addr = 0;
    g.b_addr = 1u << 30;
    g.c_addr = 2u << 30;
    // As PE_SCHEDULER does for its first command: the PE's service model
    // built, the body's tiles planned from the command's source, the body
    // problem and its signature, then its schedule. A new predictor and
    // model each time, so nothing is cached.
    const auto tiles = gemm_tiles(g);
    const uint32_t body = tiles->body_tiles();
    double best = 1e300;
    body_prediction got;
    for (int i = 0; i < runs; ++i) {
      body_predictor predictor([&] {
        return std::make_unique<service_model>(topo, builtin_kinds(), "sip0.cube0.pe0");
      });
      const auto t0 = std::chrono::steady_clock::now();
      got = predictor.predict_now(*tiles, body);
      const auto t1 = std::chrono::steady_clock::now();
      best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    const tile_schedule& ts = *got.schedule;
    fmt::print("{:<22} {:>6} {:>6} {:>14} {:>14} {:>12.3f}\n", s.name, ts.body_tiles,
               ts.body_ops, ts.ii.ps() / 1000, got.mii_ps / 1000, best);
  }
}
