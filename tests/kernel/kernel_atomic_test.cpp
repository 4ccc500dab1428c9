// Atomics on global memory (docs/adr/0027): applied by the memory that owns
// the bytes, in the order it serves them; recorded with the time it applied
// them, so the Phase 2 replay applies them in that order; exact latencies
// derived by hand (kernel_timing_test.cpp has the pieces).

#include "runtime/data/op_atomic.hpp"
#include "tests/kernel/kernel_support.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace kb {
namespace {

using ::testing::HasSubstr;
using test::figure;
using test::hbm;
using test::launch_ps;
using test::run_kernel_on_pe0;
using test::run_kernels;

const std::string cpu = "sip0.cube0.pe0.pe_cpu";
const std::string hbm_node = "sip0.cube0.hbm";

template <class T>
std::vector<T> read_back(const memory_image& m, uint64_t address, size_t n) {
  std::vector<uint8_t> b(n * sizeof(T));
  m.read(address, b);
  std::vector<T> v(n);
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

template <class T>
std::shared_ptr<memory_image> deploy(std::initializer_list<std::pair<uint64_t, std::vector<T>>> at) {
  auto m = std::make_shared<memory_image>();
  for (const auto& [address, values] : at)
    m->write(address, test::bytes_of(values));
  return m;
}

// One atomic_add of 64 B (1x16 f32) into the PE's own HBM, issued at
// t = 120.25 ns when the load of its operand returns. Up to the HBM it is
// the 64 B store of kernel_timing_test: the write channel takes it at t + 2,
// setup to t + 10, the 64 B reach the HBM with head t + 14 and tail
// t + 14.25 (the pe_dma -> xbar link's 256 GB/s holds the tail). The HBM
// reads the 64 B (xfer(64, 512) = 125 ps) and writes them back (125 ps):
// s = t + 14, free = max(s + 0.25, tail t + 14.25) = t + 14.25, so the
// read-modify-write costs no more than the store here (its bytes trickle in
// at half the HBM's bandwidth); the ack leaves at t + 114.25 and the command
// is done at t + 120.25 = 240.5 ns. The op record starts when the HBM
// applied it, t + 14 = 134.25 ns, and ends at the ack's arrival, t + 118.25 = 238.5 ns.
TEST(KernelAtomic, OneAtomicAddOf64BytesAtHbmTakes120Point25Nanoseconds) {
  std::vector<float> x(16), y(16);
  for (int i = 0; i < 16; ++i) {
    x[i] = 0.5f * i;
    y[i] = 100.0f + i;
  }
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor t = tl.load({hbm(0), dtype::f32}, {1, 16});
      tl.wait(tl.atomic_add({hbm(4096), dtype::f32}, t));
    },
    deploy<float>({{hbm(0), x}, {hbm(4096), y}}));
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(figure(r.run, cpu, "cmd2.issue_ps"), launch_ps + 120250u);
  EXPECT_EQ(figure(r.run, cpu, "cmd2.done_ps"), launch_ps + 240500u);
  ASSERT_EQ(r.ops.size(), 2u);
  const op_record& a = r.ops[1];
  EXPECT_EQ(a.op_name, "atomic_add");
  EXPECT_EQ(a.kind, op_kind::math);
  EXPECT_EQ(a.fn, math_fn::atomic_add);
  EXPECT_EQ(a.component, "sip0.cube0.pe0.pe_dma");
  EXPECT_EQ(a.t_start_ps, launch_ps + 134250u);
  EXPECT_EQ(a.t_end_ps, launch_ps + 238500u);
  EXPECT_EQ(a.out, packed_view(hbm(4096), 1, 16, dtype::f32));
  ASSERT_EQ(a.inputs.size(), 2u);
  EXPECT_EQ(a.inputs[0], a.out);
  // The HBM read 64 B for the load and 64 B for the atomic, wrote 64 B, and
  // was busy 125 ps + 250 ps.
  EXPECT_EQ(figure(r.run, hbm_node, "read_bytes"), 128u);
  EXPECT_EQ(figure(r.run, hbm_node, "write_bytes"), 64u);
  EXPECT_EQ(figure(r.run, hbm_node, "busy_ps"), 375u);
  EXPECT_EQ(figure(r.run, hbm_node, "atomics"), 1u);
  ASSERT_TRUE(r.replayed);
  const auto got = read_back<float>(r.final_image, hbm(4096), 16);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(got[i], y[i] + x[i]) << i;
}

// Two PEs update one element at the same time, one adding 1, the other
// taking the max with 5, from 4.5: add then max gives 5.5, max then add 6.
// Each waits for its atomic and loads the element: the PE whose atomic
// the HBM applied last sees the final Phase 1 value; the op log has both
// atomics in that order (by t_start), and the replay's value is the same.
TEST(KernelAtomic, TwoPesOnOneElementReplayInTheOrderTheMemoryAppliedThem) {
  for (size_t threads : {size_t{1}, size_t{2}}) {
    float seen[2] = {0, 0}; // each PE's kernel writes its own
    auto body = [&seen](math_fn f, uint64_t operand, int pe) {
      return [&seen, f, operand, pe](tl::context& tl) {
        const tl::tensor v = tl.load({operand, dtype::f32}, {1, 1});
        tl.wait(tl.atomic(f, {hbm(8192), dtype::f32}, v, nullptr, 0));
        seen[pe] = tl.load({hbm(8192), dtype::f32}, {1, 1}).at(0, 0);
      };
    };
    const auto r = run_kernels(
      {{"sip0.cube0.pe0", body(math_fn::atomic_add, hbm(0), 0)},
       {"sip0.cube0.pe1", body(math_fn::atomic_max, hbm(64), 1)}},
      deploy<float>({{hbm(0), {1.0f}}, {hbm(64), {5.0f}}, {hbm(8192), {4.5f}}}), "k", threads);
    ASSERT_EQ(r.run.error, "");
    std::vector<const op_record*> atomics;
    for (const op_record& op : r.ops)
      if (is_atomic(op.fn) && op.kind == op_kind::math)
        atomics.push_back(&op);
    ASSERT_EQ(atomics.size(), 2u);
    EXPECT_LT(atomics[0]->t_start_ps, atomics[1]->t_start_ps);
    const bool add_first = atomics[0]->fn == math_fn::atomic_add;
    const float final_value = add_first ? 5.5f : 6.0f;
    EXPECT_EQ(seen[add_first ? 1 : 0], final_value);
    ASSERT_TRUE(r.replayed);
    EXPECT_EQ(read_back<float>(r.final_image, hbm(8192), 1)[0], final_value);
    EXPECT_EQ(figure(r.run, hbm_node, "atomics"), 2u);
  }
}

// i32 atomics are exact and wrap: four PEs add to 2147483000 (a sum past
// 2^31) and one takes the max of another element with negative values.
TEST(KernelAtomic, I32AtomicsAreExactAndWrapInBothPasses) {
  const std::vector<int32_t> adds{1000, 7, -3, 123456789};
  std::map<std::string, test::test_kernel> kernels;
  std::vector<std::pair<uint64_t, std::vector<int32_t>>> init{{hbm(8192), {2147483000, -50}}};
  for (uint32_t p = 0; p < 4; ++p) {
    init.push_back({hbm(64 * p), {adds[p], -100 + int32_t(p)}});
    kernels["sip0.cube0.pe" + std::to_string(p)] = [p](tl::context& tl) {
      tl.atomic_add({hbm(8192), dtype::i32}, tl.load({hbm(64 * p), dtype::i32}, {1, 1}));
      tl.atomic_max({hbm(8196), dtype::i32}, tl.load({hbm(64 * p + 4), dtype::i32}, {1, 1}));
      tl.wait_all();
    };
  }
  auto image = std::make_shared<memory_image>();
  for (const auto& [a, v] : init)
    image->write(a, test::bytes_of(v));
  const auto r = run_kernels(kernels, image);
  ASSERT_EQ(r.run.error, "");
  uint32_t sum = 2147483000u;
  for (int32_t a : adds)
    sum += static_cast<uint32_t>(a);
  ASSERT_TRUE(r.replayed);
  const auto got = read_back<int32_t>(r.final_image, hbm(8192), 2);
  EXPECT_EQ(static_cast<uint32_t>(got[0]), sum);
  EXPECT_LT(got[0], 0); // wrapped
  EXPECT_EQ(got[1], -50);
}

// A masked atomic updates only its live elements (one DMA command per group
// of rows with the same live runs, as a masked store).
TEST(KernelAtomic, AMaskedAtomicUpdatesOnlyTheLiveElements) {
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor v = tl.load({hbm(0), dtype::f32}, {2, 4});
      const tl::tensor live = tl.lt(tl.arange(4), 2.0); // columns 0 and 1
      tl.wait(tl.atomic_add({hbm(4096), dtype::f32}, v, live));
    },
    deploy<float>({{hbm(0), {1, 2, 3, 4, 5, 6, 7, 8}}, {hbm(4096), {10, 10, 10, 10, 10, 10, 10, 10}}}));
  ASSERT_EQ(r.run.error, "");
  ASSERT_TRUE(r.replayed);
  EXPECT_EQ(read_back<float>(r.final_image, hbm(4096), 8),
            (std::vector<float>{11, 12, 10, 10, 15, 16, 10, 10}));
  EXPECT_EQ(figure(r.run, hbm_node, "atomics"), 1u);
}

// An atomic of a compute result (tl.dot) leaves the bytes pending in Phase
// 1; the replay adds the product. A later load of them by the same kernel
// waits for the atomic and gives a tensor without data (ADR-0043): reading
// it fails, naming the atomic.
TEST(KernelAtomic, AnAtomicOfAComputeResultIsPendingUntilThePhase2Replay) {
  const auto image = deploy<float>({{hbm(0), {1, 2, 3, 4}}, {hbm(4096), {0.5f, 0.5f, 0.5f, 0.5f}}});
  const auto r = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor a = tl.load({hbm(0), dtype::f32}, {2, 2});
      tl.atomic_add({hbm(4096), dtype::f32}, tl.dot(a, a));
      tl.wait_all();
    },
    image);
  ASSERT_EQ(r.run.error, "");
  ASSERT_TRUE(r.replayed);
  // [1 2; 3 4]^2 = [7 10; 15 22], plus 0.5
  EXPECT_EQ(read_back<float>(r.final_image, hbm(4096), 4),
            (std::vector<float>{7.5f, 10.5f, 15.5f, 22.5f}));
  const auto bad = run_kernel_on_pe0(
    [](tl::context& tl) {
      const tl::tensor a = tl.load({hbm(0), dtype::f32}, {2, 2});
      tl.atomic_add({hbm(4096), dtype::f32}, tl.dot(a, a));
      (void)tl.load({hbm(4096), dtype::f32}, {1, 4}).at(0, 0);
    },
    image);
  EXPECT_THAT(bad.run.error, HasSubstr("kernel k on sip0.cube0.pe0 (program 0): the data of a 1x4 f32 tensor "
                                       "loaded by command 4 was read in Phase 1; the bytes it "
                                       "loaded hold a compute result (command 3 of kernel k on "
                                       "sip0.cube0.pe0 wrote them)"));
}

// A load after an atomic of loaded data waits for it and reads what the
// memory computed (no store-to-load forwarding across an atomic).
TEST(KernelAtomic, ALoadAfterAnAtomicSeesTheMemorysResult) {
  float seen = 0;
  const auto r = run_kernel_on_pe0(
    [&seen](tl::context& tl) {
      const tl::tensor v = tl.load({hbm(0), dtype::f32}, {1, 1});
      tl.store({hbm(4096), dtype::f32}, v); // 2
      tl.atomic_add({hbm(4096), dtype::f32}, v); // 4
      seen = tl.load({hbm(4096), dtype::f32}, {1, 1}).at(0, 0);
    },
    deploy<float>({{hbm(0), {2.0f}}, {hbm(4096), {100.0f}}}));
  ASSERT_EQ(r.run.error, "");
  EXPECT_EQ(seen, 4.0f);
  EXPECT_EQ(read_back<float>(r.final_image, hbm(4096), 1)[0], 4.0f);
  // The load started after the atomic's ack: cmd4 issued at the load's
  // return, 120.25 ns, then store, atomic, load one after the other.
  EXPECT_GT(figure(r.run, cpu, "cmd4.done_ps"), figure(r.run, cpu, "cmd3.done_ps"));
}

TEST(KernelAtomic, MisuseIsAKernelErrorNamingTheKernel) {
  auto error_of = [](test::test_kernel body) { return run_kernel_on_pe0(std::move(body)).run.error; };
  EXPECT_THAT(error_of([](tl::context& tl) {
                tl.atomic_add({hbm(4096), dtype::f16}, tl.load({hbm(0), dtype::f16}, {1, 4}));
              }),
              HasSubstr("kernel k on sip0.cube0.pe0 (program 0): atomic_add of 1x4 f16: atomics take f32 or "
                        "i32 elements (cast the tensor first)"));
  EXPECT_THAT(error_of([](tl::context& tl) {
                tl.atomic_max({hbm(4096), dtype::i32}, tl.load({hbm(0), dtype::f32}, {1, 4}));
              }),
              HasSubstr("kernel k on sip0.cube0.pe0 (program 0): atomic_max of 1x4 f32 through a i32 pointer"));
  EXPECT_THAT(error_of([](tl::context& tl) {
                const tl::tensor x = tl.load({hbm(0), dtype::f32}, {1, 4});
                tl.atomic_add({hbm(4096), dtype::f32}, x, tl.exp(x)); // a pending mask
              }),
              HasSubstr("kernel k on sip0.cube0.pe0 (program 0): masked atomic_add of 1x4 f32: its mask is a "
                        "compute result"));
  const uint64_t nowhere = global_address{mem_space::hbm, 0, 5, 0, 0}.encode();
  EXPECT_THAT(error_of([&](tl::context& tl) {
                tl.atomic_add({nowhere, dtype::f32}, tl.load({hbm(0), dtype::f32}, {1, 4}));
              }),
              HasSubstr("kernel k on sip0.cube0.pe0 (program 0): atomic_add of 1x4 f32: address "
                        "0x500000000000 (hbm of sip0.cube5) is outside every memory"));
  EXPECT_THAT(error_of([](tl::context& tl) { tl.atomic_add({hbm(0), dtype::f32}, tl::tensor()); }),
              HasSubstr("kernel k on sip0.cube0.pe0 (program 0): atomic_add"));
}

} // namespace
} // namespace kb
