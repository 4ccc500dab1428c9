// Unit tests: names, sizes and parsing of the plan vocabulary types.

#include "kernels/dtype.hpp"
#include "kernels/math_op.hpp"
#include "runtime/plan/pipeline_plan.hpp"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(PlanTypes, DtypeBytesMatchDesignTable) {
  EXPECT_EQ(dtype_bytes(dtype::f32), 4u);
  EXPECT_EQ(dtype_bytes(dtype::f16), 2u);
  EXPECT_EQ(dtype_bytes(dtype::bf16), 2u);
  EXPECT_EQ(dtype_bytes(dtype::i8), 1u);
  EXPECT_EQ(dtype_bytes(dtype::i32), 4u);
}

TEST(PlanTypes, DtypeNamesRoundTrip) {
  for (auto t : {dtype::f32, dtype::f16, dtype::bf16, dtype::i8, dtype::i32})
    EXPECT_EQ(parse_dtype(to_string(t)), t) << to_string(t);
  EXPECT_EQ(to_string(dtype::bf16), "bf16");
}

TEST(PlanTypes, ParseDtypeRejectsUnknownNames) {
  EXPECT_EQ(parse_dtype("f64"), std::nullopt);
  EXPECT_EQ(parse_dtype("F16"), std::nullopt);
  EXPECT_EQ(parse_dtype(""), std::nullopt);
}

TEST(PlanTypes, MathOpNamesRoundTrip) {
  const std::pair<math_op, std::string_view> all[] = {
      {math_op::add, "add"},         {math_op::mul, "mul"},
      {math_op::relu, "relu"},       {math_op::bias, "bias"},
      {math_op::scale, "scale"},     {math_op::exp, "exp"},
      {math_op::dequant, "dequant"}, {math_op::rsqrt, "rsqrt"},
  };
  for (const auto& [op, name] : all) {
    EXPECT_EQ(to_string(op), name);
    EXPECT_EQ(parse_math_op(name), op);
  }
}

TEST(PlanTypes, ParseMathOpRejectsUnknownNames) {
  EXPECT_EQ(parse_math_op("gelu"), std::nullopt);
  EXPECT_EQ(parse_math_op("RELU"), std::nullopt);
}

TEST(PlanTypes, EpilogueScopeNamesRoundTrip) {
  EXPECT_EQ(to_string(epilogue_scope::k_tile), "k_tile");
  EXPECT_EQ(to_string(epilogue_scope::output_tile), "output_tile");
  EXPECT_EQ(parse_epilogue_scope("k_tile"), epilogue_scope::k_tile);
  EXPECT_EQ(parse_epilogue_scope("output_tile"), epilogue_scope::output_tile);
  EXPECT_EQ(parse_epilogue_scope("tile"), std::nullopt);
}

TEST(PlanTypes, StageTypeNamesAreSnakeCase) {
  EXPECT_EQ(to_string(stage_type::dma_read), "dma_read");
  EXPECT_EQ(to_string(stage_type::fetch), "fetch");
  EXPECT_EQ(to_string(stage_type::gemm), "gemm");
  EXPECT_EQ(to_string(stage_type::math), "math");
  EXPECT_EQ(to_string(stage_type::store), "store");
  EXPECT_EQ(to_string(stage_type::dma_write), "dma_write");
}

TEST(PlanTypes, StageCountSumsOverTilesAndKinds) {
  pipeline_plan plan;
  plan.tiles.push_back(
      {0,
       0,
       0,
       0,
       {{stage_type::fetch, unit_role::fetch_store, {}},
        {stage_type::gemm, unit_role::gemm, {}}}});
  plan.tiles.push_back({1, 0, 0, 1, {{stage_type::fetch, unit_role::fetch_store, {}}}});
  EXPECT_EQ(stage_count(plan), 3u);
  EXPECT_EQ(stage_count(plan, stage_type::fetch), 2u);
  EXPECT_EQ(stage_count(plan, stage_type::store), 0u);
}

TEST(PlanTypes, StageToStringShowsKindUnitAndBytes) {
  stage s{stage_type::store, unit_role::fetch_store, {}};
  s.params.operand = 'C';
  s.params.bytes = 32768;
  auto text = to_string(s);
  EXPECT_NE(text.find("store @pe_fetch_store"), std::string::npos)
      << text;
  EXPECT_NE(text.find("operand=C"), std::string::npos) << text;
  EXPECT_NE(text.find("bytes=32768"), std::string::npos) << text;
}

} // namespace
} // namespace kb
