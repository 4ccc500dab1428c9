#pragma once
// Message kinds of the PE pipeline and memory system (sim_event::kind).
//
// Scalar fields by kind:
//   token          body: TileToken; queue = stage type of its current stage;
//                  arg0 = command id, arg1 = tile id (for traces)
//   command        body: PeCommand (PE_CPU -> PE_SCHEDULER, unbounded)
//   tile_done      arg0 = command id, arg1 = tile id (unit -> scheduler)
//   command_done   arg0 = command id (scheduler -> PE_CPU)
//   tcm_request    arg0 = bytes, arg1 = lane (fetch/store -> TCM)
//   tcm_reply      arg0 = bytes, arg1 = lane (TCM -> fetch/store)
//   mem_read       arg0 = address, arg1 = mem_tag; bytes = 0
//   mem_data       arg0 = address, arg1 = mem_tag; bytes = length
//   mem_write      arg0 = address, arg1 = mem_tag; bytes = length
//   mem_ack        arg0 = address, arg1 = mem_tag; bytes = 0

#include "runtime/engine/event.hpp"

#include <string_view>

namespace kb {

enum class pipe_kind : uint16_t {
  token = first_user_kind,
  command,
  tile_done,
  command_done,
  tcm_request,
  tcm_reply,
  mem_read,
  mem_data,
  mem_write,
  mem_ack,
  launch,      ///< M_CPU -> NOC -> PE_CPU: start the kernel (arg0: the PE's index in its cube)
  kernel_done, ///< PE_CPU -> NOC -> M_CPU: its kernel returned (arg0: the PE's index)
  timer, ///< first kind free for a unit's own timers
};

constexpr uint16_t kind_of(pipe_kind k) { return static_cast<uint16_t>(k); }

/// A message kind in words, as traces name hops: the engine's (credit,
/// timer) and the pipeline's; a unit's own timers are "timer".
constexpr std::string_view message_kind_name(uint16_t kind) {
  if (kind == static_cast<uint16_t>(engine_kind::credit))
    return "credit";
  if (kind == static_cast<uint16_t>(engine_kind::timer) || kind >= kind_of(pipe_kind::timer))
    return "timer";
  switch (static_cast<pipe_kind>(kind)) {
    case pipe_kind::token: return "tile_token";
    case pipe_kind::command: return "command";
    case pipe_kind::tile_done: return "tile_done";
    case pipe_kind::command_done: return "command_done";
    case pipe_kind::tcm_request: return "tcm_request";
    case pipe_kind::tcm_reply: return "tcm_reply";
    case pipe_kind::mem_read: return "mem_read";
    case pipe_kind::mem_data: return "mem_data";
    case pipe_kind::mem_write: return "mem_write";
    case pipe_kind::mem_ack: return "mem_ack";
    case pipe_kind::launch: return "launch";
    case pipe_kind::kernel_done: return "kernel_done";
    case pipe_kind::timer: break;
  }
  return "other";
}

/// Bytes of a kernel launch or completion message (a descriptor).
inline constexpr uint64_t launch_bytes = 64;

/// arg1 of memory messages: the requesting node and the length (< 4 GiB).
struct mem_tag {
  node_id requester;
  uint32_t length;
  static mem_tag unpack(uint64_t v) {
    return {static_cast<node_id>(v & 0xffffffffu), static_cast<uint32_t>(v >> 32)};
  }
  uint64_t pack() const { return (uint64_t{length} << 32) | requester; }
};

} // namespace kb
