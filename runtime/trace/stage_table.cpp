#include "runtime/trace/stage_table.hpp"

#include "messages/sim.capnp.h"
#include "runtime/engine/control_wire.hpp"

#include <capnp/serialize.h>

namespace kb {

static_assert(stage_table::table_tag == wire::STAGE_TABLE_TAG);

std::vector<char> stage_table::encode() const {
  capnp::MallocMessageBuilder msg;
  auto out = msg.initRoot<wire::StageTable>().initRows(static_cast<unsigned>(rows.size()));
  for (unsigned k = 0; k < rows.size(); ++k) {
    out[k].setCommand(rows[k].command);
    out[k].setType(rows[k].type);
    out[k].setCount(rows[k].count);
    out[k].setBusyPs(rows[k].busy_ps);
  }
  return flat_bytes(msg);
}

stage_table stage_table::decode(const std::vector<char>& bytes) {
  const auto words = aligned_words(bytes, "stage table");
  capnp::FlatArrayMessageReader reader(words, bounded_reader(words.size()));
  std::vector<stage_tally> rows;
  for (const auto w : reader.getRoot<wire::StageTable>().getRows())
    rows.push_back({w.getCommand(), w.getType(), w.getCount(), w.getBusyPs()});
  return stage_table(std::move(rows));
}

std::vector<stage_tally> stage_table::rows_of(const summary_tables& tables) {
  return all_rows<stage_table>(tables);
}

} // namespace kb
