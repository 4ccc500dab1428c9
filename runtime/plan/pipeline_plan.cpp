#include "runtime/plan/pipeline_plan.hpp"

namespace kb {

std::string_view lane_name(stage_type type) {
  switch (type) {
  case stage_type::dma_read:
    return "read";
  case stage_type::dma_write:
    return "write";
  case stage_type::fetch:
  case stage_type::gemm:
  case stage_type::math:
  case stage_type::store:
    return to_string(type);
  }
  return "?";
}

std::string_view to_string(stage_type type) {
  switch (type) {
  case stage_type::dma_read:
    return "dma_read";
  case stage_type::fetch:
    return "fetch";
  case stage_type::gemm:
    return "gemm";
  case stage_type::math:
    return "math";
  case stage_type::store:
    return "store";
  case stage_type::dma_write:
    return "dma_write";
  }
  return "?";
}

std::string_view unit_name(unit_role role) {
  switch (role) {
  case unit_role::dma:
    return "pe_dma";
  case unit_role::fetch_store:
    return "pe_fetch_store";
  case unit_role::gemm:
    return "pe_gemm";
  case unit_role::math:
    return "pe_math";
  }
  return "?";
}

unit_role unit_of(stage_type type) {
  switch (type) {
  case stage_type::fetch:
  case stage_type::store:
    return unit_role::fetch_store;
  case stage_type::gemm:
    return unit_role::gemm;
  case stage_type::math:
    return unit_role::math;
  case stage_type::dma_read:
  case stage_type::dma_write:
    break;
  }
  return unit_role::dma;
}

uint64_t stage_count(const pipeline_plan& plan) {
  uint64_t total = 0;
  for (const auto& tile : plan.tiles)
    total += tile.stages.size();
  return total;
}

uint64_t stage_count(const pipeline_plan& plan, stage_type type) {
  uint64_t total = 0;
  for (const auto& tile : plan.tiles)
    for (const auto& s : tile.stages)
      if (s.type == type)
        ++total;
  return total;
}

uint64_t scheduler_tcm_bytes(const tile_plan& tile) {
  uint64_t total = 0;
  for (const auto& s : tile.stages)
    if ((s.type == stage_type::dma_read || s.type == stage_type::dma_write) &&
        s.params.local_address == 0)
      total += s.params.bytes;
  return total;
}

std::string to_string(const stage& s) {
  const auto& p = s.params;
  std::string out{to_string(s.type)};
  out += " @";
  out += unit_name(s.unit);
  if (p.operand != 0) {
    out += " operand=";
    out += p.operand;
  }
  if (s.type == stage_type::dma_read || s.type == stage_type::dma_write) {
    out += " address=" + std::to_string(p.address);
    out += " rows=" + std::to_string(p.rows);
    out += " row_bytes=" + std::to_string(p.row_bytes);
    out += " row_stride=" + std::to_string(p.row_stride_bytes);
  }
  if (p.bytes != 0)
    out += " bytes=" + std::to_string(p.bytes);
  out += " tile=" + std::to_string(p.tm) + "x" + std::to_string(p.tk) + "x" +
         std::to_string(p.tn);
  if (p.op) {
    out += " op=";
    out += to_string(*p.op);
    out += " elements=" + std::to_string(p.elements);
  }
  if (p.scope) {
    out += " scope=";
    out += to_string(*p.scope);
  }
  out += " dtype=";
  out += to_string(p.in_dtype);
  out += "->";
  out += to_string(p.out_dtype);
  if (p.last_k)
    out += " last_k";
  return out;
}

} // namespace kb
