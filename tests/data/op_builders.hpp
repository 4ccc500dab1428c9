#pragma once
// Small op records for tests.

#include "runtime/data/op_record.hpp"

#include <string>
#include <utility>
#include <vector>

namespace kb::test {

inline op_record memory_op(uint64_t id, uint64_t t, tensor_view in, tensor_view out,
                           std::string component = "pe0.dma") {
  op_record r;
  r.id = id;
  r.t_start_ps = t;
  r.t_end_ps = t + 1;
  r.component = std::move(component);
  r.kind = op_kind::memory;
  r.op_name = "dma";
  r.inputs = {in};
  r.out = out;
  return r;
}

inline op_record gemm_op(uint64_t id, uint64_t t, tensor_view a, tensor_view b, tensor_view out,
                         bool accumulate = false) {
  op_record r;
  r.id = id;
  r.t_start_ps = t;
  r.t_end_ps = t + 1;
  r.component = "pe0.pe_gemm";
  r.kind = op_kind::gemm;
  r.op_name = "gemm_" + std::string(to_string(a.type));
  r.inputs = {a, b};
  r.out = out;
  r.accumulate = accumulate;
  return r;
}

inline op_record math_op(uint64_t id, uint64_t t, math_fn fn, std::vector<tensor_view> in,
                         tensor_view out) {
  op_record r;
  r.id = id;
  r.t_start_ps = t;
  r.t_end_ps = t + 1;
  r.component = "pe0.pe_math";
  r.kind = op_kind::math;
  r.op_name = std::string(to_string(fn));
  r.fn = fn;
  r.inputs = std::move(in);
  r.out = out;
  return r;
}

} // namespace kb::test
