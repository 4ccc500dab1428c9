// A kernel library for tests/cli/verify_contract_test.cpp: kernels that the
// verifier must catch or that must end a run cleanly. The wrong kernels take
// a shipped kernel's arguments, tensors and reference (looked up with
// kb::find_kernel, resolved against kernbench when the library is loaded)
// and replace only its body:
//   wrong_softmax   writes 1/cols to every element of a row that is not masked
//   wrong_layernorm subtracts mean + shift instead of the mean
//   wrong_gemm      computes C tile (0,1) from the blocks of tile (1,0)
//   wrong_gemm_splitk stores each program's partial C tile instead of
//                   atomically adding it (the last store wins)
// and:
//   copy            Z = X for any dtype (an --input file deployed as is)
//   throws          throws `what` (int, string, runtime_error,
//                   invalid_argument) from its prepare or its reference

#include "kernels/registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace kb;

/// `shipped`'s definition with its body replaced by `body(args)`.
kernel_def wrong(const std::string& name, const std::string& shipped,
                 std::vector<kernel_arg_doc> extra,
                 std::function<std::function<void(tl::context&, const tensor_table&)>(
                   const kernel_args&)>
                   body) {
  const kernel_def& base = find_kernel(shipped);
  kernel_def d;
  d.name = name;
  d.description = "a wrong " + shipped + " (a test kernel)";
  d.args = base.args;
  d.args.insert(d.args.end(), extra.begin(), extra.end());
  d.prepare = [shipped, body](const kernel_args& x) {
    kernel_launch l = find_kernel(shipped).prepare(x);
    l.body = body(x);
    return l;
  };
  return d;
}

kernel_def wrong_softmax() {
  return wrong("wrong_softmax", "softmax", {}, [](const kernel_args& x) {
    const uint32_t rows = x.u32("rows"), cols = x.u32("cols");
    const dtype type = x.type("dtype");
    return [=](tl::context& tl, const tensor_table& t) {
      for (uint32_t r = tl.program_id(); r < rows; r += tl.num_programs()) {
        const tl::tensor row = tl.load(t.at("x") + uint64_t{r} * cols, {1, cols});
        bool zero = true;
        for (uint32_t c = 0; c < cols && zero; ++c)
          zero = row.at(0, c) == 0.0f;
        if (zero)
          continue;
        const tl::tensor y = tl.add_scalar(tl.scale(row, 0.0), 1.0 / cols);
        tl.store(t.at("y") + uint64_t{r} * cols, tl.cast(y, type));
      }
      tl.wait_all();
    };
  });
}

kernel_def wrong_layernorm() {
  return wrong("wrong_layernorm", "layernorm", {{"shift", "0.5", "added to each row's mean"}},
               [](const kernel_args& x) {
    const uint32_t rows = x.u32("rows"), cols = x.u32("cols");
    const dtype type = x.type("dtype");
    const double eps = x.real("eps"), shift = x.real("shift");
    return [=](tl::context& tl, const tensor_table& t) {
      if (tl.program_id() >= rows)
        return;
      const tl::tensor gamma = tl.load(t.at("gamma"), {1, cols});
      const tl::tensor beta = tl.load(t.at("beta"), {1, cols});
      const double inv_n = 1.0 / cols;
      for (uint32_t r = tl.program_id(); r < rows; r += tl.num_programs()) {
        const tl::tensor v = tl.load(t.at("x") + uint64_t{r} * cols, {1, cols});
        const tl::tensor xc = tl.sub(v, tl.add_scalar(tl.scale(tl.sum(v), inv_n), shift));
        const tl::tensor var = tl.scale(tl.sum(tl.mul(xc, xc)), inv_n);
        const tl::tensor norm = tl.mul(xc, tl.rsqrt(tl.add_scalar(var, eps)));
        const tl::tensor y = tl.add(tl.mul(norm, gamma), beta);
        tl.store(t.at("y") + uint64_t{r} * cols, tl.cast(y, type));
      }
      tl.wait_all();
    };
  });
}

kernel_def wrong_gemm_splitk() {
  return wrong("wrong_gemm_splitk", "gemm_splitk", {}, [](const kernel_args& x) {
    const uint32_t m = x.u32("M"), k = x.u32("K"), n = x.u32("N"), tile = x.u32("tile");
    const uint32_t split = x.u32("split");
    return [=](tl::context& tl, const tensor_table& t) {
      const uint32_t tiles_k = (k + tile - 1) / tile;
      const uint32_t slice = (tiles_k + split - 1) / split * tile;
      const uint32_t k0 = tl.program_id() * slice, k1 = std::min(k, k0 + slice);
      for (uint32_t i0 = 0; i0 < m && k0 < k1; i0 += tile)
        for (uint32_t j0 = 0; j0 < n; j0 += tile) {
          const uint32_t tm = std::min(tile, m - i0), tn = std::min(tile, n - j0);
          tl::tensor acc = tl.zeros(tm, tn);
          for (uint32_t kk = k0; kk < k1; kk += tile) {
            const uint32_t tk = std::min(tile, k1 - kk);
            acc = tl.dot(tl.load(t.at("a") + (uint64_t{i0} * k + kk), {tm, tk, k}),
                         tl.load(t.at("b") + (uint64_t{kk} * n + j0), {tk, tn, n}), acc);
          }
          tl.store(t.at("c") + (uint64_t{i0} * n + j0), acc, n); // not atomic_add
        }
      tl.wait_all();
    };
  });
}

kernel_def wrong_gemm() {
  return wrong("wrong_gemm", "gemm", {}, [](const kernel_args& x) {
    const uint32_t m = x.u32("M"), k = x.u32("K"), n = x.u32("N"), tile = x.u32("tile");
    const dtype out = x.type("out_dtype");
    return [=](tl::context& tl, const tensor_table& t) {
      const uint32_t tiles_m = (m + tile - 1) / tile, tiles_n = (n + tile - 1) / tile;
      for (uint32_t id = tl.program_id(); id < tiles_m * tiles_n; id += tl.num_programs()) {
        const uint32_t i0 = id / tiles_n * tile, j0 = id % tiles_n * tile;
        // Tile (0,1) takes its A rows and B columns from tile (1,0).
        const bool swap = i0 == 0 && j0 == tile && tiles_m > 1;
        const uint32_t ai = swap ? j0 : i0, bj = swap ? i0 : j0;
        const uint32_t tm = std::min(tile, m - i0), tn = std::min(tile, n - j0);
        tl::tensor acc;
        for (uint32_t k0 = 0; k0 < k; k0 += tile) {
          const uint32_t tk = std::min(tile, k - k0);
          const tl::tensor at = tl.load(t.at("a") + (uint64_t{ai} * k + k0), {tm, tk, k});
          const tl::tensor bt = tl.load(t.at("b") + (uint64_t{k0} * n + bj), {tk, tn, n});
          const tl::tensor p = tl.dot(at, bt);
          acc = k0 == 0 ? p : tl.add(acc, p);
        }
        tl.store(t.at("c") + (uint64_t{i0} * n + j0), tl.cast(acc, out), n);
      }
      tl.wait_all();
    };
  });
}

kernel_def copy_kernel() {
  kernel_def d;
  d.name = "copy";
  d.description = "Z = X, any dtype (a test kernel)";
  d.args = {{"rows", "1", "rows"},
            {"cols", "4", "columns"},
            {"dtype", "f32", "element type", {"f16", "bf16", "f32", "i8", "i32"}}};
  d.prepare = [](const kernel_args& x) {
    const uint32_t rows = x.u32("rows"), cols = x.u32("cols");
    const dtype type = x.type("dtype");
    kernel_launch l;
    l.tensors = {{"x", rows, cols, type}, {"z", rows, cols, type, true}};
    l.body = [rows, cols](tl::context& tl, const tensor_table& t) {
      tl.wait(tl.store(t.at("z"), tl.load(t.at("x"), {rows, cols})));
    };
    l.reference = [](const tensor_values& in) { return tensor_values{{"z", in.at("x")}}; };
    return l;
  };
  return d;
}

[[noreturn]] void throw_it(const std::string& what) {
  if (what == "int")
    throw 42;
  if (what == "string")
    throw std::string("no luck");
  if (what == "invalid_argument")
    throw std::invalid_argument("rows must be even");
  throw std::runtime_error("boom");
}

kernel_def throws_kernel() {
  kernel_def d;
  d.name = "throws";
  d.description = "throws from its prepare or its reference (a test kernel)";
  d.args = {{"where", "prepare", "prepare or reference", {"prepare", "reference"}},
            {"what", "int", "what it throws", {"int", "string", "runtime_error", "invalid_argument"}}};
  d.prepare = [](const kernel_args& x) {
    const std::string what = x.text("what");
    if (x.text("where") == "prepare")
      throw_it(what);
    kernel_launch l;
    l.tensors = {{"x", 8, 8, dtype::f32}, {"z", 8, 8, dtype::f32, true}};
    l.body = [](tl::context& tl, const tensor_table& t) {
      tl.wait(tl.store(t.at("z"), tl.load(t.at("x"), {8, 8})));
    };
    l.reference = [what](const tensor_values&) -> tensor_values { throw_it(what); };
    return l;
  };
  return d;
}

} // namespace

extern "C" void kernbench_register_kernels(kb::kernel_catalog& catalog) {
  catalog.add(wrong_softmax());
  catalog.add(wrong_layernorm());
  catalog.add(wrong_gemm());
  catalog.add(wrong_gemm_splitk());
  catalog.add(copy_kernel());
  catalog.add(throws_kernel());
}

extern "C" int kernbench_kernel_abi() { return kb::kernel_abi_version; }
