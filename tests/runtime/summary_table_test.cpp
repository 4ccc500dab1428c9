// A node summary's tables (runtime/engine/summary_table): the engine hands
// them on unread; across processes they cross as bytes, and their readers
// decode them to the same rows (ADR-0024, last amendment).

#include "runtime/engine/control_wire.hpp"
#include "runtime/engine/protocol.hpp"
#include "runtime/machine/command_table.hpp"
#include "runtime/trace/stage_table.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kb {
namespace {

command_stat row(uint64_t id, std::string what) {
  command_stat c;
  c.id = id;
  c.issue_ps = 1000 * id;
  c.done_ps = 1000 * id + 500;
  c.tiles = 4;
  c.done = true;
  c.call = static_cast<uint8_t>(command_call::load);
  c.unit = 3;
  c.bytes = 8192;
  c.after = id - 1;
  c.what = std::move(what);
  c.held = static_cast<uint8_t>(held_why::depends);
  c.held_by = id - 1;
  c.predicted_ii_ps = 77;
  c.has_mii = true;
  c.resumed_kernel = id % 2 == 1;
  c.blocked_from_ps = 1000 * id - 300;
  return c;
}

bool same(const command_stat& a, const command_stat& b) {
  return a.id == b.id && a.issue_ps == b.issue_ps && a.done_ps == b.done_ps &&
         a.tiles == b.tiles && a.done == b.done && a.call == b.call && a.unit == b.unit &&
         a.bytes == b.bytes && a.after == b.after && a.what == b.what && a.held == b.held &&
         a.held_by == b.held_by && a.predicted_ii_ps == b.predicted_ii_ps &&
         a.has_mii == b.has_mii && a.has_steady == b.has_steady &&
         a.resumed_kernel == b.resumed_kernel && a.blocked_from_ps == b.blocked_from_ps;
}

/// A table of a type no reader here knows.
class other_table final : public summary_table {
public:
  other_table() : summary_table(99) {}
  std::vector<char> encode() const override { return {'x', 'y'}; }
};

node_summary with_tables() {
  node_summary n;
  n.node = 5;
  n.name = "sip0.cube0.pe1.pe_cpu";
  n.tables.push_back(std::make_shared<command_table>(
    std::vector<command_stat>{row(1, "load 32x32 f16 (2048 B)"), row(2, "dot 32x32x32 f16")}));
  n.tables.push_back(std::make_shared<other_table>());
  n.tables.push_back(std::make_shared<stage_table>(std::vector<stage_tally>{{1, 2, 4, 900}}));
  n.tables.push_back(std::make_shared<command_table>(std::vector<command_stat>{row(3, "store")}));
  return n;
}

void expect_rows(const summary_tables& tables) {
  const std::vector<command_stat> rows = command_table::rows_of(tables);
  ASSERT_EQ(rows.size(), 3u); // both command tables, in order
  EXPECT_TRUE(same(rows[0], row(1, "load 32x32 f16 (2048 B)")));
  EXPECT_TRUE(same(rows[1], row(2, "dot 32x32x32 f16")));
  EXPECT_TRUE(same(rows[2], row(3, "store")));
  EXPECT_EQ(stage_table::rows_of(tables), (std::vector<stage_tally>{{1, 2, 4, 900}}));
}

TEST(SummaryTable, InOneProcessItsReadersGetTheRowsAsMade) {
  const node_summary n = with_tables();
  for (const auto& t : n.tables)
    EXPECT_EQ(t->encoded(), nullptr); // nothing was encoded
  expect_rows(n.tables);
}

TEST(SummaryTable, AcrossProcessesItArrivesAsBytesAndDecodesToTheSameRows) {
  run_result r;
  r.nodes = {with_tables()};
  const run_result d = decode_result(encode_result(r));
  ASSERT_EQ(d.nodes.size(), 1u);
  const summary_tables& tables = d.nodes[0].tables;
  ASSERT_EQ(tables.size(), 4u);
  EXPECT_EQ(tables[1]->tag(), 99u); // carried, though no reader here knows it
  ASSERT_NE(tables[1]->encoded(), nullptr);
  EXPECT_EQ(*tables[1]->encoded(), (std::vector<char>{'x', 'y'}));
  expect_rows(tables);
}

TEST(SummaryTable, DamagedTableBytesAreAClearError) {
  try {
    (void)command_table::decode({1, 2, 3});
    FAIL() << "decoded damaged bytes";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("malformed command table"), std::string::npos)
      << e.what();
  }
  EXPECT_THROW((void)stage_table::decode({}), std::runtime_error);
}

} // namespace
} // namespace kb
