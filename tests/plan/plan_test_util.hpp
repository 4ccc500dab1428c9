#pragma once
// Helpers shared by the plan tests: readable failure output and short
// projections of a plan (stage kinds, tile coordinates).

#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/plan/plan_error.hpp"

#include <array>
#include <ostream>
#include <string>
#include <vector>

namespace kb {

// gtest finds these through ADL and prints stages readably on failure.
inline void PrintTo(stage_type type, std::ostream* os) {
  *os << to_string(type);
}
inline void PrintTo(const stage& s, std::ostream* os) {
  *os << to_string(s);
}

namespace test {

/// Params with only the tile-level fields set (the base of every stage).
inline stage_params tile_params(uint32_t tm, uint32_t tk, uint32_t tn, dtype in,
                                dtype out, bool last_k) {
  stage_params p;
  p.tm = tm;
  p.tk = tk;
  p.tn = tn;
  p.in_dtype = in;
  p.out_dtype = out;
  p.last_k = last_k;
  return p;
}

/// The stage kinds of `tile`, in order.
inline std::vector<stage_type> kinds(const tile_plan& tile) {
  std::vector<stage_type> out;
  for (const auto& s : tile.stages)
    out.push_back(s.type);
  return out;
}

/// The (m, n, k) tile indices of every tile, in plan order.
inline std::vector<std::array<uint32_t, 3>> coords(const pipeline_plan& plan) {
  std::vector<std::array<uint32_t, 3>> out;
  for (const auto& t : plan.tiles)
    out.push_back({t.m, t.n, t.k});
  return out;
}

/// Stages of `tile` of kind `type`, in order.
inline std::vector<stage> stages_of(const tile_plan& tile, stage_type type) {
  std::vector<stage> out;
  for (const auto& s : tile.stages)
    if (s.type == type)
      out.push_back(s);
  return out;
}

/// The message of the `plan_error` that `f` throws, or a marker if none.
template <class F> std::string plan_error_of(F&& f) {
  try {
    f();
  } catch (const plan_error& e) {
    return e.what();
  }
  return "<no plan_error thrown>";
}

} // namespace test
} // namespace kb
