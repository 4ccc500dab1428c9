#include "runtime/engine/recorder.hpp"

namespace kb {

std::string_view to_string(trace_kind k) {
  switch (k) {
    case trace_kind::command_submitted: return "command_submitted";
    case trace_kind::sub_command_dispatched: return "sub_command_dispatched";
    case trace_kind::engine_start: return "engine_start";
    case trace_kind::engine_complete: return "engine_complete";
    case trace_kind::tile_ready: return "tile_ready";
    case trace_kind::command_complete: return "command_complete";
    case trace_kind::message_hop: return "message_hop";
    case trace_kind::call_start: return "call_start";
    case trace_kind::call_end: return "call_end";
    case trace_kind::message_receive: return "message_receive";
    case trace_kind::service: return "service";
  }
  return "?";
}

} // namespace kb
