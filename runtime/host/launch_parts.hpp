#pragma once
// What a kernel run and a host program's run share (runtime/host/kernel_run,
// runtime/host/program_run): deploying tensors' initial contents, dealing a
// launch's grid to its PEs, and the tensors the Phase 2 replay reads back.

#include "kernels/registry.hpp"
#include "runtime/data/memory_image.hpp"
#include "runtime/host/data_session.hpp"
#include "runtime/host/tensor_placement.hpp"
#include "runtime/pipeline/pe_program.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kb {

/// The most programs a launch may have (the product of its grid's axes).
inline constexpr uint64_t max_programs = uint64_t{1} << 24;

struct deploy_options {
  uint64_t seed = 1; ///< of the inputs' random values
  /// Inputs deployed from .npy files instead (tensor name -> path).
  std::map<std::string, std::string> input_files;
  bool input_cast = false; ///< --input-cast
  bool verify = false;     ///< the reference needs every input's values
};

/// `--place NAME=WHERE`: sets each named tensor's place; a name `tensors`
/// lacks is std::invalid_argument naming `who` ("kernel k", "program p").
void apply_places(const std::string& who, std::vector<kernel_tensor>& tensors,
                  const std::map<std::string, tensor_place>& places);

/// `--input NAME=PATH`: each name must be an input of `tensors`.
void check_input_files(const std::string& who, const std::vector<kernel_tensor>& tensors,
                       const std::map<std::string, std::string>& files);

/// Deploys the inputs among `tensors` (placed as `placement` says) into
/// `image`: random from the seed (input i gets stream i), or from a file.
/// Returns their values (with `verify`; else empty), by name.
tensor_values deploy_inputs(const std::vector<kernel_tensor>& tensors,
                            const tensor_placement& placement, const deploy_options& o,
                            memory_image& image);

/// Tensors placed and their initial contents deployed: what a kernel run
/// and a program run start from.
struct deployed_tensors {
  std::shared_ptr<const tensor_placement> placement;
  std::shared_ptr<memory_image> image;
  tensor_values inputs; ///< with `verify`: every input's values
  std::vector<std::pair<std::string, tl::ptr>> pointers; ///< where each tensor went
  std::vector<std::string> where; ///< each tensor's memory, in words
};

/// Places `tensors` of `who` (a kernel or program name) for `pes` on
/// `topo` (place_tensors) and deploys the inputs (deploy_inputs).
deployed_tensors place_and_deploy(const std::string& who,
                                  const std::vector<kernel_tensor>& tensors,
                                  const std::vector<std::string>& pes, const topology_spec& topo,
                                  const deploy_options& o);

/// The grid `grid` of `kernel` dealt round robin to `pes` (a PE runs its
/// programs in turn): each PE's part, running `body` with the pointers
/// `table_of(pe)` gives it. Only PEs that get a program have a part.
std::map<std::string, std::shared_ptr<pe_program>>
deal_grid(const std::string& kernel, const kernel_launch& l, uint32_t programs,
          const std::vector<std::string>& pes,
          const std::shared_ptr<const tensor_placement>& placement,
          const std::function<tensor_table(const std::string& pe)>& table_of);

/// The tensors the replay reads back and verifies (same order as `tensors`).
std::vector<data_tensor> data_tensors(const std::vector<kernel_tensor>& tensors,
                                      const tensor_placement& placement);

/// The product of a grid's axes, checked: each axis at least 1, at most
/// max_programs in all (std::invalid_argument naming `who`).
uint32_t grid_programs(const std::string& who, const std::array<uint32_t, 3>& grid);

} // namespace kb
