#pragma once
// Where the host puts a kernel's tensors (docs/kernels.md "Where tensors
// live", docs/adr/0028): each in the memory its place names, 4 KiB aligned
// in HBM and SRAM, 64 B in a PE's TCM, in the order the kernel lists them.
// A spread tensor is cut into row blocks over the HBM of the grid's cubes,
// a replicated input gets a copy in each of them; both register their
// memory with `placed_ranges`, so that no access crosses a block or writes
// a copy. The host then writes inputs through `write_placed` and reads
// results back through `parts`.

#include "kernels/registry.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/data/memory_image.hpp"
#include "runtime/kernel/placed_ranges.hpp"
#include "kernels/tensor_view.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kb {

/// One tensor where the host put it.
struct placed_tensor {
  tl::ptr ptr; ///< what the kernel gets (a replicated tensor: the first copy)
  std::shared_ptr<const tl::spread_layout> spread; ///< a spread tensor's blocks
  std::shared_ptr<const tl::tensor_extent> extent; ///< what ptr.tensor points at
  /// A replicated tensor's copies: (sip, cube) -> address.
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> copies;
  /// Its rows in order, each part a packed view (one for a contiguous
  /// tensor, one per block of a spread one, the first copy of a replicated).
  std::vector<tensor_view> parts;
  std::string where; ///< "hbm of sip0.cube0", "spread over 4 cubes' HBM, blocks of 128 rows"
};

struct tensor_placement {
  std::vector<placed_tensor> tensors; ///< in the kernel's order
  std::shared_ptr<placed_ranges> guarded;
  std::map<std::string, uint64_t> host_tcm; ///< PE prefix -> AllocatableTCM bytes taken
  /// PE prefix -> (sip, cube) of every PE of the machine (its PE_CPU's place).
  std::map<std::string, std::pair<uint32_t, uint32_t>> pe_cubes;
  /// The tensor pointers PE `pe` (a prefix) gets: its own cube's copy of
  /// each replicated tensor.
  tensor_table table_for(const std::string& pe, const std::vector<kernel_tensor>& specs) const;
};

/// Places `tensors` of kernel `kernel` for a grid dealt to `pes` (in dealing
/// order, the PEs that run programs) on `topo`. Bad places are
/// std::invalid_argument naming the kernel, the tensor and the machine.
tensor_placement place_tensors(const std::string& kernel, const std::vector<kernel_tensor>& tensors,
                               const std::vector<std::string>& pes, const topology_spec& topo);

/// Deploys the tensor's bytes as made by `source` (byte i of the tensor's
/// packed row-major bytes is its byte i) when something reads them, in
/// every place it lives.
void generate_placed(memory_image& image, const placed_tensor& t,
                     const std::shared_ptr<const memory_image::byte_source>& source);

/// Writes `bytes`, the tensor's packed row-major bytes from byte `first`
/// on, into every place it lives (each block, each copy).
void write_placed(memory_image& image, const placed_tensor& t, uint64_t first,
                  std::span<const uint8_t> bytes);

} // namespace kb
