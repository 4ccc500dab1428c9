// tl::tensor (runtime/kernel/tl.cpp): element access converts each dtype to f32
// exactly; a compute result's data cannot be touched in Phase 1; an empty
// tensor and an element outside the tensor are clear errors. The kernel API
// hands out only loaded tensors, so pending ones are built by hand here.

#include "runtime/kernel/tensor_state.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace kb {
namespace {

using ::testing::ThrowsMessage;

tl::tensor make(uint32_t rows, uint32_t cols, dtype t, std::vector<uint8_t> data,
                bool ready = true) {
  auto s = std::make_shared<tl::tensor::state>();
  s->rows = rows;
  s->cols = cols;
  s->type = t;
  s->address = 0x2000000000080000;
  s->ready = ready;
  s->data = std::move(data);
  s->owner = std::make_shared<const std::string>("kernel k on sip0.cube0.pe1");
  return tl::tensor(std::move(s));
}

TEST(TlTensor, F32ElementsAreReadRowMajor) {
  const std::vector<float> v{1.5f, -2.0f, 3.25f, 1e-30f, -0.0f, 7.0f};
  std::vector<uint8_t> b(24);
  std::memcpy(b.data(), v.data(), 24);
  const auto t = make(2, 3, dtype::f32, b);
  EXPECT_EQ(t.at(0, 0), 1.5f);
  EXPECT_EQ(t.at(0, 2), 3.25f);
  EXPECT_EQ(t.at(1, 0), 1e-30f);
  EXPECT_EQ(t.at(1, 2), 7.0f);
  EXPECT_TRUE(std::signbit(t.at(1, 1)));
  EXPECT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.cols(), 3u);
  EXPECT_EQ(t.type(), dtype::f32);
  EXPECT_EQ(t.address(), 0x2000000000080000u);
  EXPECT_TRUE(t.ready());
  EXPECT_EQ(t.bytes().size(), 24u);
}

TEST(TlTensor, F16ElementsConvertExactly) {
  // 1.0, -2.0, 65504 (max), 2^-24 (smallest subnormal), 2^-14 (smallest
  // normal), +inf, -inf, 0.333251953125 (0x3555)
  const std::vector<uint16_t> h{0x3C00, 0xC000, 0x7BFF, 0x0001, 0x0400, 0x7C00, 0xFC00, 0x3555};
  std::vector<uint8_t> b(h.size() * 2);
  std::memcpy(b.data(), h.data(), b.size());
  const auto t = make(1, 8, dtype::f16, b);
  EXPECT_EQ(t.at(0, 0), 1.0f);
  EXPECT_EQ(t.at(0, 1), -2.0f);
  EXPECT_EQ(t.at(0, 2), 65504.0f);
  EXPECT_EQ(t.at(0, 3), std::ldexp(1.0f, -24));
  EXPECT_EQ(t.at(0, 4), std::ldexp(1.0f, -14));
  EXPECT_EQ(t.at(0, 5), INFINITY);
  EXPECT_EQ(t.at(0, 6), -INFINITY);
  EXPECT_EQ(t.at(0, 7), 0.333251953125f);
}

TEST(TlTensor, F16NanStaysNan) {
  const std::vector<uint8_t> b{0x01, 0x7E}; // 0x7E01
  EXPECT_TRUE(std::isnan(make(1, 1, dtype::f16, b).at(0, 0)));
}

TEST(TlTensor, Bf16AndIntegerElementsConvertExactly) {
  // bf16 0x3FC0 = 1.5, 0xC2F7 = -123.5
  EXPECT_EQ(make(1, 2, dtype::bf16, {0xC0, 0x3F, 0xF7, 0xC2}).at(0, 0), 1.5f);
  EXPECT_EQ(make(1, 2, dtype::bf16, {0xC0, 0x3F, 0xF7, 0xC2}).at(0, 1), -123.5f);
  EXPECT_EQ(make(1, 3, dtype::i8, {0xFF, 0x80, 0x7F}).at(0, 0), -1.0f);
  EXPECT_EQ(make(1, 3, dtype::i8, {0xFF, 0x80, 0x7F}).at(0, 1), -128.0f);
  EXPECT_EQ(make(1, 3, dtype::i8, {0xFF, 0x80, 0x7F}).at(0, 2), 127.0f);
  EXPECT_EQ(make(1, 1, dtype::i32, {0xF9, 0xFF, 0xFF, 0xFF}).at(0, 0), -7.0f);
}

TEST(TlTensor, TheDataOfAPendingComputeResultIsAnError) {
  const auto t = make(4, 8, dtype::f16, {}, false);
  const std::string why =
    "kernel k on sip0.cube0.pe1: the data of a 4x8 f16 compute result was read in Phase 1; "
    "compute results are pending until the Phase 2 replay (only loaded tensors have data)";
  EXPECT_THAT([&] { t.at(0, 0); }, ThrowsMessage<tl::kernel_error>(why));
  EXPECT_THAT([&] { t.bytes(); }, ThrowsMessage<tl::kernel_error>(why));
  // Its shape and place are known.
  EXPECT_FALSE(t.ready());
  EXPECT_EQ(t.rows(), 4u);
}

TEST(TlTensor, AnElementOutsideTheTensorIsAnError) {
  const auto t = make(2, 3, dtype::i8, {1, 2, 3, 4, 5, 6});
  EXPECT_THAT([&] { t.at(2, 0); }, ThrowsMessage<tl::kernel_error>(
                                     "kernel k on sip0.cube0.pe1: element (2, 0) of a 2x3 tensor"));
  EXPECT_THAT([&] { t.at(0, 3); }, ThrowsMessage<tl::kernel_error>(
                                     "kernel k on sip0.cube0.pe1: element (0, 3) of a 2x3 tensor"));
  EXPECT_EQ(t.at(1, 2), 6.0f);
}

TEST(TlTensor, ADefaultConstructedTensorIsAnError) {
  const tl::tensor t;
  const std::string why = "a tl::tensor that holds nothing (default-constructed) was used";
  EXPECT_THAT([&] { t.rows(); }, ThrowsMessage<tl::kernel_error>(why));
  EXPECT_THAT([&] { t.at(0, 0); }, ThrowsMessage<tl::kernel_error>(why));
  EXPECT_EQ(t.raw(), nullptr);
}

TEST(TlTensor, TheLastCopyReleasesTheTcmBlock) {
  int released = 0;
  {
    auto s = std::make_shared<tl::tensor::state>();
    s->release = [&](std::vector<uint64_t>) { ++released; };
    tl::tensor a(std::move(s));
    tl::tensor b = a;
    { tl::tensor c = b; }
    EXPECT_EQ(released, 0);
  }
  EXPECT_EQ(released, 1);
}

TEST(TlPtr, PlusCountsElementsOfItsType) {
  const tl::ptr p{0x1000, dtype::f16};
  EXPECT_EQ((p + 3).address, 0x1006u);
  EXPECT_EQ((p + 3).type, dtype::f16);
  EXPECT_EQ((tl::ptr{0x1000, dtype::f32} + 3).address, 0x100Cu);
}

} // namespace
} // namespace kb
