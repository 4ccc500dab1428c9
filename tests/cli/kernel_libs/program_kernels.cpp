// A kernel library of small kernels and host programs for the program
// tests (tests/cli/program_test.cpp), written against the installed API.
//
// Kernels (each program p handles row p of 16 f32):
//   touch    y = x loaded and stored back as it is (data in Phase 1);
//   scale    y = 2 x (a compute result: pending in Phase 1);
//   plus     y = x + 1, or with `wrong=1`, x + 2 (a kernel --verify must fail);
//   peek     loads x and reads its first element (an error if x is pending);
//   past     loads the row after x's last (an error naming the tensor).
// Programs (KB_TEST_LIB only selects nothing here):
//   chain_one_pe       scale then plus on one queue, on PE 0: z = 2 x + 1;
//   two_queues         touch on PE 0 and touch on PE 1, on two queues;
//   one_queue_two_pes  touch on PE 0, then touch on PE 1, on one queue;
//   wrong_middle       scale, plus (wrong=1), scale: the middle kernel is wrong;
//   peek_pending       scale, then peek at its output;
//   halves             scale on rows 0..1 of x on the first cube's PEs and on
//                      rows 2..3 on the second's, x and y placed "cubes";
//   past_slice         past on rows 0..1 of x;
//   bad                misdeclared as --arg how says (unknown_kernel,
//                      missing_binding, shape, pes, event, cycle, rows_range,
//                      rows_syntax, freed, free_twice).

#include "kernels/program.hpp"

#include <stdexcept>
#include <string>

namespace {

using namespace kb;
constexpr uint32_t cols = 16;

kernel_def row_kernel(std::string name, std::string what) {
  kernel_def d;
  d.name = name;
  d.description = what;
  d.args = {{"rows", "1", "rows (= programs)"}, {"wrong", "0", "1: compute the wrong thing"}};
  d.prepare = [name](const kernel_args& a) {
    const uint32_t rows = a.u32("rows");
    const bool wrong = a.u32("wrong") != 0;
    kernel_launch l;
    l.tensors = {{"x", rows, cols, dtype::f32}, {"y", rows, cols, dtype::f32, true}};
    l.grid = {rows, 1, 1};
    l.body = [name, wrong](tl::context& tl, const tensor_table& t) {
      const uint64_t row = uint64_t{name == "past" ? tl.num_programs() : tl.program_id()} * cols;
      const tl::tensor x = tl.load(t.at("x") + row, {1, cols});
      if (name == "peek") {
        (void)x.at(0, 0);
        return;
      }
      const tl::tensor y = name == "touch" ? x
                           : name == "scale" ? tl.scale(x, 2.0)
                                             : tl.add_scalar(x, wrong ? 2.0 : 1.0);
      tl.wait(tl.store(t.at("y") + row, y));
    };
    l.reference = [name](const tensor_values& in) {
      std::vector<double> y = in.at("x");
      for (double& v : y)
        v = name == "touch" ? v : name == "scale" ? 2 * v : v + 1;
      return tensor_values{{"y", y}};
    };
    return l;
  };
  return d;
}

std::vector<double> map(std::vector<double> v, double mul, double add) {
  for (double& e : v)
    e = e * mul + add;
  return v;
}

program_def program(std::string name, std::function<void(program_builder&, const kernel_args&)> f) {
  program_def d;
  d.name = std::move(name);
  d.description = "a test program";
  d.args = {{"how", "none", "bad: what is wrong"}};
  d.build = std::move(f);
  return d;
}

const std::map<std::string, std::string> one_row = {{"rows", "1"}};

} // namespace

extern "C" void kernbench_register_kernels(kb::kernel_catalog& catalog) {
  for (const char* k : {"touch", "scale", "plus", "peek", "past"})
    catalog.add(row_kernel(k, std::string("test kernel ") + k));

  catalog.add_program(program("chain_one_pe", [](program_builder& p, const kernel_args&) {
    p.tensor({"x", 1, cols, dtype::f32});
    p.tensor({"y", 1, cols, dtype::f32, true});
    p.tensor({"z", 1, cols, dtype::f32, true});
    const auto q = p.queue("main");
    p.launch(q, "scale", one_row, {{"x", "x"}, {"y", "y"}}, {0, 1});
    p.launch(q, "plus", one_row, {{"x", "y"}, {"y", "z"}}, {0, 1});
    p.reference([](const tensor_values& in) {
      return tensor_values{{"y", map(in.at("x"), 2, 0)}, {"z", map(in.at("x"), 2, 1)}};
    });
  }));
  auto two = [](bool one_queue) {
    return [one_queue](program_builder& p, const kernel_args&) {
      p.tensor({"x", 1, cols, dtype::f32});
      p.tensor({"w", 1, cols, dtype::f32});
      p.tensor({"y", 1, cols, dtype::f32, true});
      p.tensor({"z", 1, cols, dtype::f32, true});
      const auto a = p.queue("a");
      const auto b = one_queue ? a : p.queue("b");
      p.launch(a, "touch", one_row, {{"x", "x"}, {"y", "y"}}, {0, 1});
      p.launch(b, "touch", one_row, {{"x", "w"}, {"y", "z"}}, {1, 1});
      p.reference([](const tensor_values& in) {
        return tensor_values{{"y", in.at("x")}, {"z", in.at("w")}};
      });
    };
  };
  catalog.add_program(program("two_queues", two(false)));
  catalog.add_program(program("one_queue_two_pes", two(true)));
  catalog.add_program(program("wrong_middle", [](program_builder& p, const kernel_args&) {
    p.tensor({"x", 4, cols, dtype::f32});
    p.tensor({"y", 4, cols, dtype::f32, true});
    p.tensor({"z", 4, cols, dtype::f32, true});
    p.tensor({"w", 4, cols, dtype::f32, true});
    const auto q = p.queue("main");
    const std::map<std::string, std::string> four = {{"rows", "4"}};
    auto wrong = four;
    wrong["wrong"] = "1";
    p.launch(q, "scale", four, {{"x", "x"}, {"y", "y"}});
    p.launch(q, "plus", wrong, {{"x", "y"}, {"y", "z"}});
    p.launch(q, "scale", four, {{"x", "z"}, {"y", "w"}});
    p.reference([](const tensor_values& in) {
      return tensor_values{{"y", map(in.at("x"), 2, 0)},
                           {"z", map(in.at("x"), 2, 1)},
                           {"w", map(in.at("x"), 4, 2)}};
    });
  }));
  catalog.add_program(program("peek_pending", [](program_builder& p, const kernel_args&) {
    p.tensor({"x", 1, cols, dtype::f32});
    p.tensor({"y", 1, cols, dtype::f32, true});
    p.tensor({"z", 1, cols, dtype::f32, true});
    const auto q = p.queue("main");
    p.launch(q, "scale", one_row, {{"x", "x"}, {"y", "y"}}, {0, 1});
    p.launch(q, "peek", one_row, {{"x", "y"}, {"y", "z"}}, {0, 1});
  }));
  auto halves = [](const char* kernel) {
    return [kernel](program_builder& p, const kernel_args&) {
      tensor_place by_cube;
      by_cube.in = tensor_place::memory::spread_cubes;
      kernel_tensor x{"x", 4, cols, dtype::f32};
      kernel_tensor y{"y", 4, cols, dtype::f32, true};
      x.place = y.place = by_cube;
      p.tensor(x);
      p.tensor(y);
      const std::map<std::string, std::string> two = {{"rows", "2"}};
      for (uint32_t half = 0; half < (kernel == std::string("past") ? 1 : 2); ++half) {
        const auto q = p.queue(half == 0 ? "first" : "second");
        p.launch(q, kernel, two,
                 {{"x", rows_of("x", 2 * half, 2 * half + 2)},
                  {"y", rows_of("y", 2 * half, 2 * half + 2)}},
                 p.cubes().at(half));
      }
      p.reference([](const tensor_values& in) { return tensor_values{{"y", map(in.at("x"), 2, 0)}}; });
    };
  };
  catalog.add_program(program("halves", halves("scale")));
  catalog.add_program(program("past_slice", halves("past")));
  catalog.add_program(program("bad", [](program_builder& p, const kernel_args& a) {
    const std::string how = a.text("how");
    p.tensor({"x", 1, cols, dtype::f32});
    p.tensor({"y", 1, cols, dtype::f32, true});
    p.tensor({"big", 2, cols, dtype::f32, true});
    const auto q = p.queue("main");
    if (how == "unknown_kernel")
      p.launch(q, "nope", {}, {});
    else if (how == "missing_binding")
      p.launch(q, "touch", one_row, {{"x", "x"}});
    else if (how == "shape")
      p.launch(q, "touch", one_row, {{"x", "x"}, {"y", "big"}});
    else if (how == "pes")
      p.launch(q, "touch", one_row, {{"x", "x"}, {"y", "y"}}, {2, 8});
    else if (how == "event")
      p.wait(q, program_event{});
    else if (how == "rows_range")
      p.launch(q, "touch", {{"rows", "2"}}, {{"x", "big"}, {"y", "big[1:3]"}});
    else if (how == "rows_syntax")
      p.launch(q, "touch", one_row, {{"x", "x"}, {"y", "big[1:]"}});
    else if (how == "freed") {
      p.launch(q, "touch", one_row, {{"x", "x"}, {"y", "y"}});
      p.free("x");
      p.launch(q, "touch", one_row, {{"x", "x"}, {"y", "y"}});
    } else if (how == "free_twice") {
      p.free("x");
      p.free("x");
    } else if (how == "queue")
      p.launch(program_queue{}, "touch", one_row, {{"x", "x"}, {"y", "y"}});
  }));
}

extern "C" int kernbench_kernel_abi() { return kb::kernel_abi_version; }
