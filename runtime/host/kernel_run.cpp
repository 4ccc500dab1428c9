#include "runtime/host/kernel_run.hpp"

#include "runtime/address.hpp"
#include "runtime/data/dtype_convert.hpp"
#include "runtime/data/npy.hpp"
#include "runtime/data/npy_convert.hpp"
#include "runtime/host/kernel_calls.hpp"
#include "runtime/kernel/kernel_context.hpp"
#include "runtime/pipeline/command.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <unistd.h>

namespace kb {

namespace {

constexpr uint64_t tensor_alignment = 4096;

/// The random values of input `index`, quantized to its dtype: the bytes
/// deployed and the values they hold.
std::pair<std::vector<uint8_t>, std::vector<double>> random_input(const kernel_tensor& t,
                                                                  uint64_t seed, size_t index) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + index + 1);
  std::uniform_real_distribution<float> dist(t.lo, t.hi);
  std::vector<double> v(size_t{t.rows} * t.cols);
  for (double& x : v)
    x = dist(rng);
  if (t.adjust)
    t.adjust(v);
  std::vector<uint8_t> bytes(v.size() * dtype_bytes(t.type));
  encode_f64(t.type, v, bytes);
  decode_f64(t.type, bytes, v);
  return {std::move(bytes), std::move(v)};
}

/// The same random values as random_input, written into `image` at
/// `address` a chunk at a time: for an input without `adjust` whose values
/// nothing needs (no --verify), so that a 512 MiB input costs its image
/// pages and a 1 Mi-element chunk, not 2 GiB of doubles beside them.
void deploy_random_input(const kernel_tensor& t, uint64_t seed, size_t index,
                         memory_image& image, uint64_t address) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + index + 1);
  std::uniform_real_distribution<float> dist(t.lo, t.hi);
  const uint64_t n = uint64_t{t.rows} * t.cols;
  const uint32_t e = dtype_bytes(t.type);
  // The values are floats: a float type encodes them straight from f32
  // (round to nearest even, as encode_f64 of the same values does).
  const bool integer = t.type == dtype::i8 || t.type == dtype::i32;
  std::vector<float> chunk(std::min<uint64_t>(n, uint64_t{1} << 20));
  std::vector<double> wide(integer ? chunk.size() : 0);
  std::vector<uint8_t> bytes(chunk.size() * e);
  for (uint64_t i = 0; i < n; i += chunk.size()) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(chunk.size(), n - i));
    for (size_t j = 0; j < m; ++j)
      chunk[j] = dist(rng);
    const std::span<uint8_t> out(bytes.data(), m * e);
    if (integer) {
      std::copy_n(chunk.begin(), m, wide.begin());
      encode_f64(t.type, std::span<const double>(wide.data(), m), out);
    } else {
      encode_f32(t.type, std::span<const float>(chunk.data(), m), out);
    }
    image.write(address + i * e, out);
  }
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

kernel_run_result run_kernel(topology_spec topo, const kernel_def& def, const kernel_args& args,
                             const kernel_run_options& o) {
  kernel_launch l = call_prepare(def, args);
  uint64_t total = 1;
  for (const uint32_t n : l.grid)
    total *= n;
  if (total == 0 || total > std::numeric_limits<uint32_t>::max())
    throw std::invalid_argument(fmt::format("kernel {}: a grid of {}x{}x{} programs (each axis "
                                            "needs 1 or more, and at most 2^32 - 1 in all)",
                                            def.name, l.grid[0], l.grid[1], l.grid[2]));
  const auto programs_n = static_cast<uint32_t>(total);
  std::vector<std::string> pes = pe_prefixes(topo);
  if (pes.empty())
    throw std::invalid_argument(fmt::format("{}: the topology has no PE", topo.file));
  if (o.pes > pes.size())
    throw std::invalid_argument(
      fmt::format("--pes {}: the topology has {} PEs", o.pes, pes.size()));
  std::set<std::pair<uint32_t, uint32_t>> cubes; // (sip, cube) of every PE of the machine
  for (const std::string& pe : pes) {
    unsigned s = 0, c = 0;
    if (std::sscanf(pe.c_str(), "sip%u.cube%u", &s, &c) == 2)
      cubes.emplace(s, c);
  }
  if (o.pes > 0)
    pes.resize(o.pes);
  for (const auto& [name, place] : o.places) {
    const auto it = std::find_if(l.tensors.begin(), l.tensors.end(),
                                 [&](const kernel_tensor& t) { return t.name == name; });
    if (it == l.tensors.end()) {
      std::string names;
      for (const auto& t : l.tensors)
        names += (names.empty() ? "" : ", ") + t.name;
      throw std::invalid_argument(fmt::format("--place {}={}: kernel {} has no tensor '{}' (its "
                                              "tensors: {})",
                                              name, to_string(place), def.name, name, names));
    }
    it->place = place;
  }

  for (const auto& [name, path] : o.input_files) {
    const auto it = std::find_if(l.tensors.begin(), l.tensors.end(),
                                 [&](const kernel_tensor& t) { return t.name == name; });
    if (it == l.tensors.end() || it->output || it->scratch) {
      std::string inputs;
      for (const auto& t : l.tensors)
        if (!t.output && !t.scratch)
          inputs += (inputs.empty() ? "" : ", ") + t.name;
      throw std::invalid_argument(fmt::format("--input {}={}: kernel {} has no input '{}' (its inputs: {})",
                                              name, path, def.name, name, inputs));
    }
  }
  kernel_run_result r;
  r.kernel = def.name;
  r.specs = l.tensors;
  r.programs = programs_n;
  r.grid = l.grid;
  for (size_t pe = 0; pe < pes.size() && pe < programs_n; ++pe)
    r.pes.push_back(pes[pe]);
  // Each tensor in its memory (by default the HBM of the first PE's cube),
  // 4 KiB aligned, in the order the kernel lists them.
  unsigned sip = 0, cube = 0;
  if (std::sscanf(pes[0].c_str(), "sip%u.cube%u", &sip, &cube) != 2)
    throw std::invalid_argument(fmt::format("PE '{}' is not named sipS.cubeC.peP", pes[0]));
  auto image = std::make_shared<memory_image>();
  tensor_values inputs;
  tensor_table table;
  std::map<uint64_t, uint64_t> next_free; // a memory's base address -> its next free offset
  for (size_t i = 0; i < l.tensors.size(); ++i) {
    const kernel_tensor& t = l.tensors[i];
    const uint64_t bytes = uint64_t{t.rows} * t.cols * dtype_bytes(t.type);
    global_address at{mem_space::hbm, sip, cube, 0, 0};
    if (t.place.in != tensor_place::memory::first_cube_hbm) {
      if (!cubes.count({t.place.sip, t.place.cube}))
        throw std::invalid_argument(fmt::format("kernel {}: tensor {} is placed in {}, a cube "
                                                "the machine does not have",
                                                def.name, t.name, to_string(t.place)));
      at = {t.place.in == tensor_place::memory::sram ? mem_space::sram : mem_space::hbm,
            t.place.sip, t.place.cube, 0, 0};
    }
    uint64_t& offset = next_free[at.encode()];
    if (offset + bytes > global_address::max_offset + 1)
      throw std::invalid_argument(fmt::format(
        "kernel {}: tensor {} ({} B) does not fit in the 64 GiB address range of {} ({} B are "
        "taken)",
        def.name, t.name, bytes, memory_of(at.encode()), offset));
    at.offset = offset;
    const tl::ptr p{at.encode(), t.type};
    offset += (bytes + tensor_alignment - 1) / tensor_alignment * tensor_alignment;
    table[t.name] = p;
    r.tensors.emplace_back(t.name, p);
    if (!t.output && !t.scratch) {
      const auto file = o.input_files.find(t.name);
      // Without --verify nothing reads the values: a random input goes
      // straight into the image.
      if (!o.data.verify && file == o.input_files.end() && !t.adjust) {
        deploy_random_input(t, o.seed, i, *image, p.address);
        continue;
      }
      auto [b, v] = file != o.input_files.end() ? file_input(t, file->second, o.input_cast)
                                                : random_input(t, o.seed, i);
      image->write(p.address, b);
      if (o.data.verify) // the reference's only reader
        inputs[t.name] = std::move(v);
    }
  }

  // The grid, dealt to the PEs round robin; a PE runs its programs in turn.
  std::map<std::string, std::shared_ptr<const driver_program>> programs;
  for (size_t pe = 0; pe < pes.size() && pe < programs_n; ++pe) {
    std::vector<uint32_t> ids;
    for (uint64_t id = pe; id < programs_n; id += pes.size())
      ids.push_back(static_cast<uint32_t>(id));
    auto prog = std::make_shared<driver_program>();
    prog->kernel = def.name;
    const auto& g = l.grid;
    prog->program_id = {ids.front() % g[0], ids.front() / g[0] % g[1], ids.front() / g[0] / g[1]};
    prog->num_programs = g;
    prog->fn = [body = l.body, table, ids](tl::context& tl) {
      auto& k = static_cast<kernel_context&>(tl);
      for (uint32_t id : ids) {
        k.set_program(id);
        body(tl, table);
      }
      // A launch completes when its commands have: a program need not wait
      // for its last stores (the next one's loads overlap them).
      tl.wait_all();
    };
    programs[pes[pe]] = std::move(prog);
  }

  // Rank 0 (or a run in one process) keeps the op log and replays it; the
  // other processes of a split run ship their records to it (o.driver.ops).
  const bool replays = o.driver.cluster.rank == 0;
  data_session data(replays ? o.data : data_request{}, image);
  driver_options d = o.driver;
  d.deploy = image;
  if (replays)
    d.ops = data.sink();
  r.run = run_driver(std::move(topo), programs, d);
  if (!r.run.error.empty() || !replays)
    return r; // nothing to replay: the run failed, or rank 0 replays
  data.absorb(r.run.result.nodes);
  std::vector<data_tensor> tensors;
  for (const kernel_tensor& t : l.tensors) {
    std::optional<tolerance> tol;
    if (t.tolerance)
      tol = tolerance{t.tolerance->rtol, t.tolerance->atol_factor, false};
    tensors.push_back({t.name, packed_view(table.at(t.name).address, t.rows, t.cols, t.type),
                       t.output, tol, t.scratch});
  }
  tensor_values expected;
  if (o.data.verify)
    expected = call_reference(def.name, l, inputs);
  r.data = data.finish(tensors, [&](const std::string& name) {
    auto it = expected.find(name);
    if (it == expected.end())
      throw std::logic_error(fmt::format("kernel {}: its reference gives no '{}'", def.name, name));
    return it->second;
  });
  return r;
}

} // namespace kb
