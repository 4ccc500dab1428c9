#pragma once
// Tile tokens and PE commands as Cap'n Proto messages (messages/pipeline.capnp)
// and their conversion from and to the plan types (runtime/plan).

#include "messages/pipeline.capnp.h"
#include "runtime/data/op_record.hpp"
#include "runtime/engine/event.hpp"
#include "runtime/engine/message_body.hpp"
#include "runtime/plan/pipeline_plan.hpp"

#include <string>

namespace kb {

/// A token for `tile` of command `command`, at stage 0; the last stage's
/// unit sends the tile-done notice to node `scheduler`; `slot` names the
/// tile's operand slots in the op log (stage_ops).
message_body make_token(const tile_plan& tile, uint64_t command, node_id scheduler,
                        uint32_t slot = 0);
/// Words of `tile`'s token as make_token builds it (the root pointer, the
/// token, its stages and their operand views): the size of its one segment.
size_t token_words(const tile_plan& tile);

void to_wire(const stage& s, wire::Stage::Builder out);
stage from_wire(wire::Stage::Reader in);
/// A data op (without id, times, component) and back.
void to_wire(const op_record& r, wire::DataOp::Builder out);
op_record from_wire(wire::DataOp::Reader in);

inline stage_type to_stage_type(wire::StageType t) {
  return static_cast<stage_type>(static_cast<uint16_t>(t));
}

} // namespace kb
