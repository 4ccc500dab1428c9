#include "runtime/host/launch_parts.hpp"

#include "runtime/data/dtype_convert.hpp"
#include "runtime/data/npy.hpp"
#include "runtime/data/npy_convert.hpp"
#include "runtime/data/random_input.hpp"
#include "runtime/host/kernel_calls.hpp"
#include "runtime/kernel/kernel_context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kb {

namespace {

/// The random values of input `index` (runtime/data/random_input.hpp),
/// quantized to its dtype: the bytes deployed and the values they hold.
std::pair<std::vector<uint8_t>, std::vector<double>> random_input(const kernel_tensor& t,
                                                                  uint64_t seed, size_t index) {
  const random_input_stream stream(seed, index, t.lo, t.hi);
  std::vector<double> v(size_t{t.rows} * t.cols);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = stream.at(i);
  if (t.adjust)
    t.adjust(v);
  std::vector<uint8_t> bytes(v.size() * dtype_bytes(t.type));
  encode_f64(t.type, v, bytes);
  decode_f64(t.type, bytes, v);
  return {std::move(bytes), std::move(v)};
}

/// The same bytes as random_input, made only when something reads them
/// (a load in Phase 1, the replay, a dump): for an input without `adjust`
/// whose values nothing needs up front (no --verify). A kernel that never
/// loads an input (a composite GEMM) never makes it (docs/adr/0028).
void deploy_random_input(const kernel_tensor& t, uint64_t seed, size_t index,
                         memory_image& image, const placed_tensor& at) {
  generate_placed(image, at,
                  std::make_shared<const memory_image::byte_source>(
                    [stream = random_input_stream(seed, index, t.lo, t.hi),
                     type = t.type](uint64_t first, std::span<uint8_t> out) {
                      stream.fill_bytes(type, first, out);
                    }));
}

/// Input `t` from the .npy file `path`: the bytes deployed and their values.
/// A conversion that changes a value is refused unless `cast`.
std::pair<std::vector<uint8_t>, std::vector<double>> file_input(const kernel_tensor& t,
                                                                const std::string& path,
                                                                bool cast) {
  const npy_array a = read_npy(path);
  const bool matches = (a.shape.size() == 2 && a.shape[0] == t.rows && a.shape[1] == t.cols) ||
                       (a.shape.size() == 1 && t.rows == 1 && a.shape[0] == t.cols);
  if (!matches) {
    std::string shape;
    for (uint64_t d : a.shape)
      shape += (shape.empty() ? "" : "x") + std::to_string(d);
    throw std::invalid_argument(fmt::format("--input {}={}: the file holds a {} array; tensor {} is {}x{}",
                                            t.name, path, shape.empty() ? "0-d" : shape, t.name,
                                            t.rows, t.cols));
  }
  npy_conversion c = convert_npy(a, t.type);
  if (c.changed > 0 && !cast)
    throw std::invalid_argument(fmt::format(
      "--input {}={}: {} of {} values of the file ({}) change as {}, the dtype of tensor {}; the "
      "first is [{},{}] = {}, which becomes {}. Give --input-cast to convert anyway (as a store "
      "does: round to nearest even, floats overflow to inf, integers saturate, NaN -> 0)",
      t.name, path, c.changed, c.values.size(), a.descr(), to_string(t.type), t.name,
      c.first / t.cols, c.first % t.cols, c.first_was, c.first_becomes));
  return {std::move(c.bytes), std::move(c.values)};
}

} // namespace

void apply_places(const std::string& who, std::vector<kernel_tensor>& tensors,
                  const std::map<std::string, tensor_place>& places) {
  for (const auto& [name, place] : places) {
    const auto it = std::find_if(tensors.begin(), tensors.end(),
                                 [&](const kernel_tensor& t) { return t.name == name; });
    if (it == tensors.end()) {
      std::string names;
      for (const auto& t : tensors)
        names += (names.empty() ? "" : ", ") + t.name;
      throw std::invalid_argument(fmt::format("--place {}={}: {} has no tensor '{}' (its "
                                              "tensors: {})",
                                              name, to_string(place), who, name, names));
    }
    it->place = place;
  }
}

void check_input_files(const std::string& who, const std::vector<kernel_tensor>& tensors,
                       const std::map<std::string, std::string>& files) {
  for (const auto& [name, path] : files) {
    const auto it = std::find_if(tensors.begin(), tensors.end(),
                                 [&](const kernel_tensor& t) { return t.name == name; });
    if (it == tensors.end() || it->output || it->scratch) {
      std::string inputs;
      for (const auto& t : tensors)
        if (!t.output && !t.scratch)
          inputs += (inputs.empty() ? "" : ", ") + t.name;
      throw std::invalid_argument(fmt::format("--input {}={}: {} has no input '{}' (its inputs: {})",
                                              name, path, who, name, inputs));
    }
  }
}

tensor_values deploy_inputs(const std::vector<kernel_tensor>& tensors,
                            const tensor_placement& placement, const deploy_options& o,
                            memory_image& image) {
  tensor_values inputs;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const kernel_tensor& t = tensors[i];
    const placed_tensor& p = placement.tensors[i];
    if (t.output || t.scratch)
      continue;
    const auto file = o.input_files.find(t.name);
    // Without --verify nothing needs the values up front: a random
    // input is made when read.
    if (!o.verify && file == o.input_files.end() && !t.adjust) {
      deploy_random_input(t, o.seed, i, image, p);
      continue;
    }
    auto [b, v] = file != o.input_files.end() ? file_input(t, file->second, o.input_cast)
                                              : random_input(t, o.seed, i);
    write_placed(image, p, 0, b);
    if (o.verify) // the reference's only reader
      inputs[t.name] = std::move(v);
  }
  return inputs;
}

deployed_tensors place_and_deploy(const std::string& who,
                                  const std::vector<kernel_tensor>& tensors,
                                  const std::vector<std::string>& pes, const topology_spec& topo,
                                  const deploy_options& o) {
  deployed_tensors d;
  d.placement = std::make_shared<const tensor_placement>(place_tensors(who, tensors, pes, topo));
  d.image = std::make_shared<memory_image>();
  for (size_t i = 0; i < tensors.size(); ++i) {
    d.pointers.emplace_back(tensors[i].name, d.placement->tensors[i].ptr);
    d.where.push_back(d.placement->tensors[i].where);
  }
  d.inputs = deploy_inputs(tensors, *d.placement, o, *d.image);
  return d;
}

std::map<std::string, std::shared_ptr<pe_program>>
deal_grid(const std::string& kernel, const kernel_launch& l, uint32_t programs,
          const std::vector<std::string>& pes,
          const std::shared_ptr<const tensor_placement>& placement,
          const std::function<tensor_table(const std::string& pe)>& table_of) {
  std::map<std::string, std::shared_ptr<pe_program>> out;
  for (size_t pe = 0; pe < pes.size() && pe < programs; ++pe) {
    std::vector<uint32_t> ids;
    for (uint64_t id = pe; id < programs; id += pes.size())
      ids.push_back(static_cast<uint32_t>(id));
    auto prog = std::make_shared<pe_program>();
    prog->kernel = kernel;
    if (!placement->guarded->empty())
      prog->placed = placement->guarded;
    if (const auto it = placement->host_tcm.find(pes[pe]); it != placement->host_tcm.end())
      prog->host_tcm_bytes = it->second;
    const auto& g = l.grid;
    prog->program_id = {ids.front() % g[0], ids.front() / g[0] % g[1], ids.front() / g[0] / g[1]};
    prog->num_programs = g;
    // The pointers this PE gets (its own cube's copies); the lambda keeps
    // the placement, which owns the spread layouts they point into.
    prog->fn = [body = l.body, table = table_of(pes[pe]), placement, ids](tl::context& tl) {
      auto& k = static_cast<kernel_context&>(tl);
      for (uint32_t id : ids) {
        k.set_program(id);
        body(tl, table);
      }
      k.end_programs();
      // A launch completes when its commands have: a program need not wait
      // for its last stores (the next one's loads overlap them).
      tl.wait_all();
    };
    out[pes[pe]] = std::move(prog);
  }
  return out;
}

std::vector<data_tensor> data_tensors(const std::vector<kernel_tensor>& tensors,
                                      const tensor_placement& placement) {
  std::vector<data_tensor> out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const kernel_tensor& t = tensors[i];
    std::optional<tolerance> tol;
    if (t.tolerance)
      tol = tolerance{t.tolerance->rtol, t.tolerance->atol_factor, false};
    const std::vector<tensor_view>& parts = placement.tensors[i].parts;
    out.push_back({t.name, parts.front(), t.output, tol, t.scratch,
                   parts.size() > 1 ? parts : std::vector<tensor_view>{}});
  }
  return out;
}

uint32_t grid_programs(const std::string& who, const std::array<uint32_t, 3>& grid) {
  if (grid[0] == 0 || grid[1] == 0 || grid[2] == 0)
    throw std::invalid_argument(fmt::format("{}: a grid of {}x{}x{} programs (each axis needs 1 "
                                            "or more)",
                                            who, grid[0], grid[1], grid[2]));
  // Two 32-bit axes fit in 64 bits; within the limit, so does the third.
  const uint64_t plane = uint64_t{grid[0]} * grid[1];
  const uint64_t total = plane > max_programs ? plane : plane * grid[2];
  if (total > max_programs)
    throw std::invalid_argument(fmt::format(
      "{}: a grid of {}x{}x{} programs, more than the limit of {} (2^24) in all (a PE runs its "
      "programs one after the other, each simulated command by command)",
      who, grid[0], grid[1], grid[2], max_programs));
  return static_cast<uint32_t>(total);
}

} // namespace kb
