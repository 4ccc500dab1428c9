#include "runtime/report/pe_groups_json.hpp"

#include "runtime/machine/command_table.hpp"

#include <optional>
#include <string_view>

namespace kb {

namespace {

/// {"min", "min_at", "median", "max", "max_at", "total"}; null over no value.
void write_spread(json_writer& j, std::string_view key, const spread& s) {
  j.key(key);
  if (s.count == 0) {
    j.null_value();
    return;
  }
  j.begin_object()
    .field("min", s.min)
    .field("min_at", s.min_at)
    .field("median", s.median)
    .field("max", s.max)
    .field("max_at", s.max_at)
    .field("total", s.total)
    .end_object();
}

} // namespace

void write_groups_json(json_writer& j, const pe_group_summary& g) {
  j.begin_object().field("pes", uint64_t{g.pes});
  j.key("commands").begin_array();
  for (const command_group& c : g.commands) {
    j.begin_object()
      .field("id", c.id)
      .field("what", c.what)
      .field("call", to_string(static_cast<command_call>(c.call)))
      .field("pes", uint64_t{c.latency.count});
    write_spread(j, "tiles", c.tiles);
    write_spread(j, "latency_ps", c.latency);
    write_spread(j, "done_ps", c.done);
    j.field("flops", c.flops).field("bytes", c.bytes).end_object();
  }
  j.end_array();
  j.key("lanes").begin_array();
  for (const lane_group& l : g.lanes) {
    j.begin_object().field("lane", l.lane).field("nodes", uint64_t{l.busy.count});
    write_spread(j, "busy_ps", l.busy);
    write_spread(j, "stall_ps", l.stall);
    write_spread(j, "wait_ps", l.wait);
    j.field("stages", l.stages).field("bytes", l.bytes).end_object();
  }
  j.end_array();
  j.key("intervals").begin_array();
  for (const interval_group& i : g.intervals) {
    j.begin_object()
      .field("command", i.id)
      .field("pes", uint64_t{i.simulated.count})
      .field("body_tiles", i.body_tiles);
    j.key("predicted_ii_ps").value(i.predicted_ii_ps ? std::optional(i.predicted_ii_ps)
                                                     : std::nullopt);
    write_spread(j, "steady_interval_ps", i.simulated.max ? i.simulated : spread{});
    j.end_object();
  }
  j.end_array();
  j.key("feeders").begin_object().field("pes", uint64_t{g.feeder_stall.count});
  write_spread(j, "stall_ps", g.feeder_stall);
  j.field("tiles_fed", g.tiles_fed).end_object();
  j.key("links").begin_array();
  for (const link_group& l : g.links) {
    j.begin_object()
      .field("src", l.src)
      .field("dst", l.dst)
      .field("links", uint64_t{l.bytes.count});
    write_spread(j, "bytes", l.bytes);
    write_spread(j, "busy_ps", l.busy);
    j.end_object();
  }
  j.end_array();
  const kernel_group& k = g.kernel;
  j.key("kernel_time")
    .begin_object()
    .field("pes", uint64_t{k.span.count})
    .field("finished", k.finished);
  write_spread(j, "span_ps", k.span);
  write_spread(j, "computing_ps", k.computing);
  write_spread(j, "blocked_load_ps", k.blocked_load);
  write_spread(j, "wait_ps", k.wait);
  write_spread(j, "tcm_wait_ps", k.tcm_wait);
  j.end_object().end_object();
}

} // namespace kb
