#pragma once
// PE commands (seed ADR-0014 D3): composite GEMM and MATH, and simple commands
// (one stage on one unit). PE_CPU encodes them as PeCommand messages;
// PE_SCHEDULER decodes them and plans their tiles.

#include "messages/pipeline.capnp.h"
#include "runtime/machine/command_table.hpp"
#include "runtime/data/op_record.hpp"
#include "runtime/engine/message_body.hpp"
#include "runtime/plan/gemm_plan.hpp"
#include "runtime/plan/math_plan.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace kb {

/// A simple command: one stage (its `component` names the unit), and for
/// a kernel's compute on TCM tensors the data op it performs (the op log
/// records it as it is).
struct simple_command {
  stage s;
  std::optional<op_record> op = std::nullopt;
};

using pe_command = std::variant<gemm_plan_args, math_plan_args, simple_command>;

/// Short label for reports: "gemm 1024x1024x1024 f16 tiles 128x128x128",
/// "math exp 256x256 f16 tiles 64x64", "load 64x64 f16 (8192 B)", "dot
/// 64x64x64 f16", "exp 64x64 f32".
std::string describe(const pe_command& c);

/// The memory `address` is in: "hbm of sip0.cube1", "tcm of sip0.cube0.pe3".
std::string memory_of(uint64_t address);

/// What the report says of a command (its command_stat's PE_CPU side).
struct command_facts {
  command_call call = command_call::gemm;
  uint8_t unit = 0xff;  ///< stage_type of a one-stage command; 0xff: composite
  uint64_t flops = 0;   ///< 2MNK for a GEMM or dot, the op's count for MATH
  uint64_t bytes = 0;   ///< what a load or store moves
};
command_facts facts_of(const pe_command& c);

/// `payload`: the bytes a simple dma_write writes (empty: a compute result,
/// whose bytes exist only in Phase 2); `who`: the kernel, named in errors.
/// `deps`: commands that must be done before this one starts.
message_body encode_command(const pe_command& c, uint64_t id,
                            std::span<const uint8_t> payload = {}, std::string_view who = {},
                            std::span<const uint64_t> deps = {});

/// Plans a decoded command (its stages name units by role, so the plan is
/// the same on every PE). Throws plan_error for a bad command.
pipeline_plan plan_command(wire::PeCommand::Reader cmd);

/// The same tiles one at a time, as PE_SCHEDULER feeds them; the command is
/// checked (plan_error) before any tile is built.
std::unique_ptr<tile_source> command_tiles(wire::PeCommand::Reader cmd);

} // namespace kb
