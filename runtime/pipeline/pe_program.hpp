#pragma once
// What a PE_CPU runs: a kernel (DESIGN §5), a plain function on its own
// fiber, at a place in the launch grid. Without one it runs the built-in
// driver kernel: it issues `commands` back to back (asynchronously, all at
// time 0 in order) and then waits until every one is done.

#include "runtime/pipeline/command.hpp"

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kb {

namespace tl {
class context; // kernels/tl.hpp
}
class placed_ranges; // runtime/kernel/placed_ranges.hpp

struct pe_program {
  std::vector<pe_command> commands; ///< the built-in driver's
  std::string kernel = "driver";    ///< the kernel's name, for reports and errors
  std::function<void(tl::context&)> fn; ///< set: run this kernel instead
  std::array<uint32_t, 3> program_id{0, 0, 0};
  std::array<uint32_t, 3> num_programs{1, 1, 1};
  /// Spread and replicated tensors' memory, checked on every access (null: none).
  std::shared_ptr<const placed_ranges> placed;
  /// Bytes of this PE's AllocatableTCM the host's tensors hold (from its start).
  uint64_t host_tcm_bytes = 0;
  /// A host program's launches on this PE (kernels/program.hpp): the
  /// launch's number and what the PE runs for it, in launch order. Set, the
  /// PE runs nothing of its own: each starts when its launch arrives from
  /// the M_CPU (after the kernel it runs then, if any, has returned).
  std::vector<std::pair<uint32_t, std::shared_ptr<const pe_program>>> launches;
};

} // namespace kb
