#pragma once
// The kernel author's API (DESIGN §5, ADR-0020 D3). A kernel is a plain C++
// function `void k(tl::context& tl, const Args& args)`; it runs on its own
// fiber inside its PE's PE_CPU actor, so it reads like straight-line code:
//
//   void copy_rows(tl::context& tl, const copy_args& a) {
//     const uint32_t row = tl.program_id();
//     tl::tensor x = tl.load(a.src + row * a.cols, {1, a.cols}); // suspends; has data
//     if (x.at(0, 0) != 0)                                        // branch on loaded data
//       tl.wait(tl.store(a.dst + row * a.cols, x));
//   }
//
// Loads suspend the kernel until their data arrives and return it (Phase 1
// has real data for loads). Composite commands (gemm, math) and stores are
// asynchronous: they return a handle to wait on. The results of compute are
// pending in Phase 1 (computed by the Phase 2 replay): touching their data
// is an error. Misuse (out-of-range or misaligned access, TCM overflow, a
// pending tensor's data) throws tl::kernel_error, which ends the run with a
// message naming the kernel and its PE.

#include "runtime/plan/dtype.hpp"
#include "runtime/plan/gemm_plan.hpp"
#include "runtime/plan/math_plan.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

namespace kb::tl {

using kb::dtype;

/// A kernel's misuse of the API.
class kernel_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A typed pointer into global memory (HBM, SRAM or another PE's TCM).
struct ptr {
  uint64_t address = 0;
  dtype type = dtype::f32;
  /// `elements` further on.
  ptr operator+(uint64_t elements) const { return {address + elements * dtype_bytes(type), type}; }
};

/// The shape of a 2-D block in global memory: `rows` rows of `cols`
/// elements, `row_stride` elements apart (0: `cols`, packed).
struct block {
  uint32_t rows = 1;
  uint32_t cols = 1;
  uint64_t row_stride = 0;
};

/// An asynchronous command in flight (a store, a composite gemm or math).
struct handle {
  uint64_t command = 0;
};

/// A tensor in this PE's TCM (AllocatableTCM, freed with its last copy):
/// loaded (its data is there in Phase 1) or a compute result (pending).
class tensor {
public:
  struct state; // runtime/kernel/kernel_context.cpp
  tensor() = default;
  explicit tensor(std::shared_ptr<const state> s) : s_(std::move(s)) {}

  uint32_t rows() const;
  uint32_t cols() const;
  dtype type() const;
  /// Its global (TCM) address.
  uint64_t address() const;
  /// Whether its data exists in Phase 1 (true for loads).
  bool ready() const;
  /// Element (r, c) as a float; kernel_error if pending or out of range.
  float at(uint32_t r, uint32_t c) const;
  /// The bytes, row-major and packed; kernel_error if pending.
  std::span<const uint8_t> bytes() const;

  const state* raw() const { return s_.get(); }

private:
  const state& get() const;
  std::shared_ptr<const state> s_;
};

class context {
public:
  virtual ~context() = default;

  // -- the grid ---------------------------------------------------------------
  virtual uint32_t program_id(unsigned axis = 0) const = 0;
  virtual uint32_t num_programs(unsigned axis = 0) const = 0;
  /// The kernel's name and its PE ("sip0.cube0.pe3"), for messages.
  virtual const std::string& kernel_name() const = 0;
  virtual const std::string& pe() const = 0;

  // -- memory -------------------------------------------------------------------
  /// DMA of a block of global memory into TCM; suspends until it is there
  /// and returns it with its data.
  virtual tensor load(ptr src, block b) = 0;
  /// DMA of a TCM tensor to global memory (row stride `row_stride` elements,
  /// 0: packed). A loaded tensor's bytes are written in Phase 1; a pending
  /// one's in Phase 2.
  virtual handle store(ptr dst, const tensor& t, uint64_t row_stride = 0) = 0;

  // -- composite commands (PE_SCHEDULER plans their tiles) ------------------------
  /// C = A x B (+ epilogue) over global memory; `pe_prefix` is filled in.
  virtual handle gemm(gemm_plan_args a) = 0;
  /// An element-wise op over global memory.
  virtual handle math(math_plan_args a) = 0;

  // -- waiting ------------------------------------------------------------------------
  /// Suspends until the command is done (timing only: a compute result
  /// stays pending in Phase 1).
  virtual void wait(handle h) = 0;
  /// Suspends until every command issued so far is done.
  virtual void wait_all() = 0;
};

} // namespace kb::tl
