#include "runtime/machine/command_table.hpp"

#include "messages/sim.capnp.h"
#include "runtime/engine/control_wire.hpp"

#include <capnp/serialize.h>

namespace kb {

std::string_view to_string(command_call c) {
  switch (c) {
    case command_call::gemm: return "gemm";
    case command_call::math: return "math";
    case command_call::load: return "load";
    case command_call::store: return "store";
    case command_call::dot: return "dot";
    case command_call::compute: return "compute";
  }
  return "?";
}

std::string_view to_string(held_why w) {
  switch (w) {
    case held_why::none: return "none";
    case held_why::depends: return "depends";
    case held_why::engine: return "engine";
  }
  return "?";
}

static_assert(command_table::table_tag == wire::COMMAND_TABLE_TAG);

std::vector<char> command_table::encode() const {
  capnp::MallocMessageBuilder msg;
  auto out = msg.initRoot<wire::CommandTable>().initRows(static_cast<unsigned>(rows.size()));
  for (unsigned k = 0; k < rows.size(); ++k) {
    const command_stat& c = rows[k];
    auto w = out[k];
    w.setId(c.id);
    w.setIssuePs(c.issue_ps);
    w.setDonePs(c.done_ps);
    w.setTiles(c.tiles);
    w.setDone(c.done);
    w.setCall(c.call);
    w.setUnit(c.unit);
    w.setFlops(c.flops);
    w.setBytes(c.bytes);
    w.setAfter(c.after);
    w.setWhat(c.what);
    w.setArrivePs(c.arrive_ps);
    w.setStartPs(c.start_ps);
    w.setHeld(c.held);
    w.setHeldBy(c.held_by);
    w.setBodyTiles(c.body_tiles);
    w.setPredictedIiPs(c.predicted_ii_ps);
    w.setPredictedMiiPs(c.predicted_mii_ps);
    w.setSteadyIntervalPs(c.steady_interval_ps);
    w.setHasMii(c.has_mii);
    w.setHasSteady(c.has_steady);
    w.setResumedKernel(c.resumed_kernel);
    w.setBlockedFromPs(c.blocked_from_ps);
  }
  return flat_bytes(msg);
}

command_table command_table::decode(const std::vector<char>& bytes) {
  const auto words = aligned_words(bytes, "command table");
  capnp::FlatArrayMessageReader reader(words, bounded_reader(words.size()));
  std::vector<command_stat> rows;
  for (const auto w : reader.getRoot<wire::CommandTable>().getRows())
    rows.push_back({w.getId(), w.getIssuePs(), w.getDonePs(), w.getTiles(), w.getDone(),
                    w.getCall(), w.getUnit(), w.getFlops(), w.getBytes(), w.getAfter(),
                    w.getWhat().cStr(), w.getResumedKernel(), w.getBlockedFromPs(),
                    w.getArrivePs(), w.getStartPs(), w.getHeld(),
                    w.getHeldBy(), w.getBodyTiles(), w.getPredictedIiPs(),
                    w.getPredictedMiiPs(), w.getSteadyIntervalPs(), w.getHasMii(),
                    w.getHasSteady()});
  return command_table(std::move(rows));
}

std::vector<command_stat> command_table::rows_of(const summary_tables& tables) {
  return all_rows<command_table>(tables);
}

} // namespace kb
