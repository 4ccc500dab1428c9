#pragma once
// The host side of a kernel run (DESIGN §5, issue 12): places the kernel's
// tensors in HBM, deploys their initial contents (inputs random from a
// seed, outputs zero), launches the kernel over a grid of PEs, runs the
// machine (Phase 1, with the op log on when results are wanted), replays
// the op log on the deployed image (Phase 2), reads the outputs back,
// verifies them against the kernel's reference and dumps tensors as .npy.

#include "kernels/registry.hpp"
#include "runtime/host/data_session.hpp"
#include "runtime/host/launch_parts.hpp"
#include "runtime/run/machine_run.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kb {

struct kernel_run_options {
  machine_options machine;   ///< threads, tracing, ... (deploy and ops are set here)
  uint64_t seed = 1;         ///< of the inputs' random values
  size_t pes = 0;            ///< PEs the grid is dealt to (0: all)
  data_request data;         ///< op log, Phase 2, verify, dumps
  /// Inputs deployed from .npy files instead of random values: tensor name
  /// -> path (shape must match; values are converted to the tensor's dtype,
  /// runtime/data/npy_convert.hpp). A conversion that changes a value is
  /// refused (std::invalid_argument naming the first) unless `input_cast`.
  std::map<std::string, std::string> input_files;
  bool input_cast = false; ///< --input-cast: convert as a store does, values may change
  /// --place NAME=WHERE: overrides where the kernel places these tensors.
  std::map<std::string, tensor_place> places;
};

struct kernel_run_result {
  machine_run run;
  std::string kernel;
  std::vector<std::pair<std::string, tl::ptr>> tensors; ///< where the host put them
  std::vector<std::string> where; ///< each tensor's memory, in words (same order)
  std::vector<kernel_tensor> specs; ///< the tensors as prepare declared them (same order)
  std::vector<std::string> pes;     ///< the PEs the grid was dealt to, in order
  uint32_t programs = 0;            ///< programs in the grid
  std::array<uint32_t, 3> grid{1, 1, 1}; ///< along axes 0, 1, 2
  data_result data;          ///< Phase 2 and the verdicts (one per output, with verify)
};

/// Runs `def` with `args` on `topo`. Bad arguments or options are
/// std::invalid_argument; a failed run is in `run.error`; what the kernel's
/// prepare or reference throws is guarded (runtime/host/kernel_calls.hpp).
kernel_run_result run_kernel(topology_spec topo, const kernel_def& def, const kernel_args& args,
                             const kernel_run_options& o);

} // namespace kb
