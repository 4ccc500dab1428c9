#include "runtime/cli/trace_command.hpp"

#include "runtime/io/atomic_file.hpp"
#include "runtime/cli/trace_filter_cli.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"
#include "runtime/trace/chrome_trace.hpp"
#include "runtime/trace/trace_file.hpp"
#include "runtime/trace/trace_stats.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace kb {

namespace {

struct trace_cli {
  std::string in, out;
  size_t top = 10;
  trace_filter_args filters;
};

/// Each node's gate, made when the node's first record comes.
class gates {
public:
  explicit gates(std::shared_ptr<const trace_selection> sel) : sel_(std::move(sel)) {}
  bool keep(const trace_record& r) {
    auto it = by_node_.find(r.node);
    if (it == by_node_.end())
      it = by_node_.emplace(r.node, trace_gate(sel_, sel_->selected(r.node))).first;
    return it->second.keep(r);
  }

private:
  std::shared_ptr<const trace_selection> sel_;
  std::map<node_id, trace_gate> by_node_;
};

int convert(const trace_cli& c) {
  std::optional<trace_filter> filter = parse_trace_filter(c.filters, false);
  // Without --trace-kinds, every kind the trace has (hops if it has them).
  if (filter && !c.filters.kinds_given)
    filter->hops = true;
  const trace_reader in(c.in);
  std::shared_ptr<const trace_selection> sel;
  std::set<node_id> nodes = in.nodes();
  if (filter) {
    // The same decisions as a filtered run's recorders, node by node: a
    // first pass finds the nodes with a record kept (the writer's
    // processes), the second writes them.
    sel = std::make_shared<const trace_selection>(*filter, in.names());
    nodes.clear();
    gates first(sel);
    in.for_each([&](const trace_record& r) {
      if (first.keep(r))
        nodes.insert(r.node);
    });
  }
  write_text_file(c.out, "JSON trace file", [&](std::ostream& out) {
    chrome_trace_writer w(out, in.names(), nodes, &message_kind_name,
                          filter ? filter->cut() : chrome_trace_cut{});
    std::optional<gates> keep;
    if (sel)
      keep.emplace(sel);
    in.for_each_merged([&](const trace_record& r) {
      if (!keep || keep->keep(r))
        w.add(r);
    });
    w.finish();
  });
  return 0;
}

int stats(const trace_cli& c) {
  const trace_reader in(c.in);
  print_trace_stats(std::cout, in, compute_trace_stats(in, c.top));
  return 0;
}

} // namespace

CLI::App* add_trace_command(CLI::App& app, int& exit_code) {
  auto c = std::make_shared<trace_cli>();
  auto* cmd = app.add_subcommand("trace", "tools for trace files (convert, stats)");
  cmd->require_subcommand(1);
  auto* conv = cmd->add_subcommand(
    "convert", "write a trace (from run --trace-stream or a Cap'n Proto run --trace) as "
               "Chrome/Perfetto JSON, in constant memory for a streamed one");
  conv->add_option("IN", c->in, "trace file")->required();
  conv->add_option("OUT", c->out, "JSON file to write (gzipped when it ends in .gz)")
    ->required();
  add_trace_filter_options(*conv, c->filters, "Filters (as in kernbench run)");
  conv->footer("Example:\n  kernbench run --trace-stream run.trace --trace-hops\n"
               "  kernbench trace convert run.trace run.json   # open in ui.perfetto.dev\n"
               "  kernbench trace convert run.trace pe0.json.gz --trace-select '*.pe0.*' "
               "--trace-window 10us:20us");
  conv->callback([c, &exit_code] { exit_code = convert(*c); });
  auto* st = cmd->add_subcommand(
    "stats", "per unit lane: stages, busy time and utilisation; the N longest stages");
  st->add_option("IN", c->in, "trace file")->required();
  st->add_option("--top", c->top, "how many of the longest stages to list")
    ->capture_default_str()
    ->check(CLI::Range(0, 1000000));
  st->footer("Example:\n  kernbench run --trace-stream run.trace\n"
             "  kernbench trace stats run.trace --top 5");
  st->callback([c, &exit_code] { exit_code = stats(*c); });
  cmd->footer("Examples:\n  kernbench trace convert run.trace run.json\n"
              "  kernbench trace stats run.trace");
  return cmd;
}

} // namespace kb
