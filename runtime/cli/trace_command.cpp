#include "runtime/cli/trace_command.hpp"

#include "runtime/report/atomic_file.hpp"
#include "runtime/trace/chrome_trace.hpp"
#include "runtime/trace/trace_stats.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace kb {

namespace {

struct trace_cli {
  std::string in, out;
  size_t top = 10;
};

int convert(const trace_cli& c) {
  const trace_reader in(c.in);
  atomic_file out(c.out, "JSON trace file");
  chrome_trace_writer w(out.stream(), in.names(), in.nodes());
  in.for_each_merged([&](const trace_record& r) { w.add(r); });
  w.finish();
  out.commit();
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
  conv->add_option("OUT", c->out, "JSON file to write")->required();
  conv->footer("Example:\n  kernbench run --trace-stream run.trace --trace-hops\n"
               "  kernbench trace convert run.trace run.json   # open in ui.perfetto.dev");
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
