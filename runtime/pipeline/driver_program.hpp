#pragma once
// What a PE_CPU runs: a kernel (DESIGN §5), a plain function on its own
// fiber, at a place in the launch grid. Without one it runs the built-in
// driver kernel: it issues `commands` back to back (asynchronously, all at
// time 0 in order) and then waits until every one is done.

#include "runtime/pipeline/command.hpp"

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace kb {

namespace tl {
class context; // kernels/tl.hpp
}

struct driver_program {
  std::vector<pe_command> commands; ///< the built-in driver's
  std::string kernel = "driver";    ///< the kernel's name, for reports and errors
  std::function<void(tl::context&)> fn; ///< set: run this kernel instead
  std::array<uint32_t, 3> program_id{0, 0, 0};
  std::array<uint32_t, 3> num_programs{1, 1, 1};
};

} // namespace kb
