#include "runtime/host/tensor_placement.hpp"

#include "runtime/address.hpp"
#include "runtime/pipeline/command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace kb {

namespace {

constexpr uint64_t hbm_alignment = 4096;
constexpr uint64_t tcm_alignment = 64; // as tcm_allocator

uint64_t align(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

using cube_key = std::pair<uint32_t, uint32_t>;

/// PE `pe`'s cube, from `pe_cubes` (tensor_placement::pe_cubes).
cube_key cube_of(const std::map<std::string, cube_key>& pe_cubes, const std::string& pe) {
  const auto it = pe_cubes.find(pe);
  if (it == pe_cubes.end())
    throw std::invalid_argument(fmt::format("'{}' is not a PE of the machine", pe));
  return it->second;
}

/// Takes `bytes` from the memory at `base` (its next free offset kept in
/// `next_free`), `alignment` aligned; the address.
class allocator {
public:
  allocator(const std::string& kernel) : kernel_(kernel) {}
  uint64_t take(global_address at, uint64_t bytes, uint64_t alignment, const std::string& tensor) {
    at.offset = 0;
    uint64_t& offset = next_free_[at.encode()];
    if (offset == 0)
      offset = first_[at.encode()];
    if (offset + bytes > global_address::max_offset + 1)
      throw std::invalid_argument(fmt::format(
        "kernel {}: tensor {} ({} B) does not fit in the 64 GiB address range of {} ({} B are "
        "taken)",
        kernel_, tensor, bytes, memory_of(at.encode()), offset));
    at.offset = offset;
    offset += align(bytes, alignment);
    return at.encode();
  }
  /// Where a memory's first tensor goes (a TCM's AllocatableTCM).
  void start(global_address at, uint64_t offset) {
    at.offset = 0;
    first_.emplace(at.encode(), offset);
  }
  uint64_t used(global_address at) const {
    at.offset = 0;
    const auto it = next_free_.find(at.encode());
    const auto f = first_.find(at.encode());
    return it == next_free_.end() ? 0 : it->second - (f == first_.end() ? 0 : f->second);
  }

private:
  std::string kernel_;
  std::map<uint64_t, uint64_t> next_free_, first_;
};

} // namespace

tensor_table tensor_placement::table_for(const std::string& pe,
                                         const std::vector<kernel_tensor>& specs) const {
  tensor_table t;
  const cube_key cube = cube_of(pe_cubes, pe);
  for (size_t i = 0; i < tensors.size() && i < specs.size(); ++i) {
    tl::ptr p = tensors[i].ptr;
    if (const auto it = tensors[i].copies.find(cube); it != tensors[i].copies.end())
      p.address = it->second;
    t[specs[i].name] = p;
  }
  return t;
}

tensor_placement place_tensors(const std::string& kernel, const std::vector<kernel_tensor>& tensors,
                               const std::vector<std::string>& pes, const topology_spec& topo) {
  if (pes.empty())
    throw std::invalid_argument(fmt::format("kernel {}: no PE to deal the grid to", kernel));
  tensor_placement out;
  std::set<cube_key> machine_cubes;
  std::set<std::string> machine_pes;
  for (const node_spec& n : topo.nodes)
    if (n.kind == "pe_cpu" && n.place.pe) {
      const std::string pe = n.id.substr(0, n.id.rfind('.'));
      const cube_key cube{*n.place.sip, *n.place.cube};
      machine_cubes.insert(cube);
      machine_pes.insert(pe);
      out.pe_cubes.emplace(pe, cube);
    }
  auto cube_of = [&out](const std::string& pe) { return kb::cube_of(out.pe_cubes, pe); };
  std::vector<cube_key> grid_cubes; // the cubes of the grid's PEs, in dealing order
  for (const std::string& pe : pes)
    if (std::find(grid_cubes.begin(), grid_cubes.end(), cube_of(pe)) == grid_cubes.end())
      grid_cubes.push_back(cube_of(pe));
  const cube_key first = cube_of(pes.front());

  out.guarded = std::make_shared<placed_ranges>();
  allocator alloc(kernel);
  for (const kernel_tensor& t : tensors) {
    const uint64_t e = dtype_bytes(t.type);
    const uint64_t row_bytes = uint64_t{t.cols} * e;
    const uint64_t bytes = uint64_t{t.rows} * row_bytes;
    placed_tensor p;
    p.ptr.type = t.type;
    const tensor_place& at = t.place;
    auto hbm = [](cube_key c) { return global_address{mem_space::hbm, c.first, c.second, 0, 0}; };
    switch (at.in) {
    case tensor_place::memory::first_cube_hbm:
    case tensor_place::memory::hbm:
    case tensor_place::memory::sram: {
      global_address g = hbm(first);
      if (at.in != tensor_place::memory::first_cube_hbm) {
        if (!machine_cubes.count({at.sip, at.cube}))
          throw std::invalid_argument(fmt::format("kernel {}: tensor {} is placed in {}, a cube "
                                                  "the machine does not have",
                                                  kernel, t.name, to_string(at)));
        g = {at.in == tensor_place::memory::sram ? mem_space::sram : mem_space::hbm, at.sip,
             at.cube, 0, 0};
      }
      p.ptr.address = alloc.take(g, bytes, hbm_alignment, t.name);
      p.where = memory_of(p.ptr.address);
      break;
    }
    case tensor_place::memory::tcm: {
      const std::string pe = fmt::format("sip{}.cube{}.pe{}", at.sip, at.cube, at.pe);
      const node_spec* tcm = machine_pes.count(pe) ? topo.find_node(pe + ".pe_tcm") : nullptr;
      if (!tcm)
        throw std::invalid_argument(fmt::format("kernel {}: tensor {} is placed in {}, a PE "
                                                "the machine does not have (or one without a "
                                                "pe_tcm)",
                                                kernel, t.name, to_string(at)));
      const uint64_t size = tcm->params.required<uint64_t>("size_kib") * 1024;
      const uint64_t start =
        align(tcm->params.required<uint64_t>("scheduler_reserved_kib") * 1024, tcm_alignment);
      const global_address g{mem_space::tcm, at.sip, at.cube, at.pe, 0};
      alloc.start(g, start);
      p.ptr.address = alloc.take(g, bytes, tcm_alignment, t.name);
      const uint64_t used = alloc.used(g);
      if (start + used > size)
        throw std::invalid_argument(fmt::format(
          "kernel {}: tensor {} ({} B) does not fit in the AllocatableTCM of {}: {} B of {} B "
          "(the TCM's {} B less the scheduler's {} B) would be taken",
          kernel, t.name, bytes, pe, used, size > start ? size - start : 0, size, start));
      out.host_tcm[pe] = used;
      p.where = memory_of(p.ptr.address);
      break;
    }
    case tensor_place::memory::spread:
    case tensor_place::memory::spread_cubes: {
      if (t.rows == 0 || t.cols == 0)
        throw std::invalid_argument(
          fmt::format("kernel {}: tensor {} is empty and cannot be spread", kernel, t.name));
      // Block b goes to the cube of the b-th PE, or to the b-th cube.
      const bool by_cube = at.in == tensor_place::memory::spread_cubes;
      const uint64_t over = by_cube ? grid_cubes.size() : pes.size();
      const uint64_t rows = at.block_rows ? at.block_rows : (t.rows + over - 1) / over;
      const uint64_t blocks = (t.rows + rows - 1) / rows;
      auto layout = std::make_shared<tl::spread_layout>();
      layout->block_elements = rows * t.cols;
      std::set<cube_key> used;
      for (uint64_t b = 0; b < blocks; ++b) {
        const cube_key c = by_cube ? grid_cubes[b % over] : cube_of(pes[b % over]);
        used.insert(c);
        const uint64_t r0 = b * rows, n = std::min<uint64_t>(rows, t.rows - r0);
        const uint64_t address = alloc.take(hbm(c), n * row_bytes, hbm_alignment, t.name);
        layout->blocks.push_back(address);
        p.parts.push_back(packed_view(address, static_cast<uint32_t>(n), t.cols, t.type));
        out.guarded->add({address, address + n * row_bytes,
                          fmt::format("block {} (rows {}..{}, in {}) of spread tensor {}", b, r0,
                                      r0 + n - 1, memory_of(address), t.name),
                          false});
      }
      p.ptr = {layout->blocks.front(), t.type, layout.get(), 0};
      p.spread = std::move(layout);
      p.where = fmt::format("spread over the HBM of {} cube{}, {} block{} of {} rows", used.size(),
                            used.size() == 1 ? "" : "s", blocks, blocks == 1 ? "" : "s", rows);
      break;
    }
    case tensor_place::memory::replicated: {
      if (t.output || t.scratch)
        throw std::invalid_argument(fmt::format(
          "kernel {}: tensor {} is {}; only an input can be replicated (a write would change "
          "one copy)",
          kernel, t.name, t.output ? "an output" : "scratch"));
      for (const cube_key& c : grid_cubes) {
        const uint64_t address = alloc.take(hbm(c), bytes, hbm_alignment, t.name);
        p.copies[c] = address;
        if (bytes > 0)
          out.guarded->add({address, address + bytes,
                            fmt::format("the copy in {} of replicated tensor {}",
                                        memory_of(address), t.name),
                            true});
      }
      p.ptr.address = p.copies.at(grid_cubes.front());
      p.where = fmt::format("replicated in the HBM of {} cube{}", grid_cubes.size(),
                            grid_cubes.size() == 1 ? "" : "s");
      break;
    }
    }
    if (p.parts.empty())
      p.parts.push_back(packed_view(p.ptr.address, t.rows, t.cols, t.type));
    // What the kernel's accesses through it are checked against (ADR-0042).
    p.extent = std::make_shared<const tl::tensor_extent>(
      tl::tensor_extent{t.name, uint64_t{t.rows} * t.cols, t.rows, t.cols,
                        t.output || t.scratch || t.inout});
    p.ptr.tensor = p.extent.get();
    p.ptr.index = 0;
    out.tensors.push_back(std::move(p));
  }
  return out;
}

void generate_placed(memory_image& image, const placed_tensor& t,
                     const std::shared_ptr<const memory_image::byte_source>& source) {
  if (!t.copies.empty()) {
    const tensor_view& v = t.parts.front();
    for (const auto& [cube, address] : t.copies)
      image.generate(address, v.row_bytes() * v.rows, source, 0);
    return;
  }
  uint64_t first = 0;
  for (const tensor_view& v : t.parts) {
    image.generate(v.address, v.row_bytes() * v.rows, source, first);
    first += v.row_bytes() * v.rows;
  }
}

void write_placed(memory_image& image, const placed_tensor& t, uint64_t first,
                  std::span<const uint8_t> bytes) {
  if (!t.copies.empty()) {
    for (const auto& [cube, address] : t.copies)
      image.write(address + first, bytes);
    return;
  }
  if (!t.spread) {
    image.write(t.ptr.address + first, bytes);
    return;
  }
  const uint64_t block_bytes = t.spread->block_elements * dtype_bytes(t.ptr.type);
  while (!bytes.empty()) {
    const uint64_t b = first / block_bytes, in = first % block_bytes;
    const uint64_t n = std::min<uint64_t>(bytes.size(), block_bytes - in);
    image.write(t.spread->blocks.at(b) + in, bytes.first(n));
    bytes = bytes.subspan(n);
    first += n;
  }
}

} // namespace kb
