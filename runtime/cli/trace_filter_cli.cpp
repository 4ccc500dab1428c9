#include "runtime/cli/trace_filter_cli.hpp"

#include "runtime/cli/run_limits_cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <stdexcept>
#include <string_view>

namespace kb {

namespace {

/// `text` split at commas, every piece non-empty.
std::vector<std::string> comma_list(const std::string& text, const char* option,
                                    const char* what) {
  std::vector<std::string> out;
  size_t from = 0;
  while (true) {
    const size_t at = text.find(',', from);
    std::string piece =
        text.substr(from, at == std::string::npos ? at : at - from);
    if (piece.empty())
      throw std::invalid_argument(fmt::format(
          "{} '{}': an empty {} (give a comma list without empty entries)",
          option, text, what));
    out.push_back(std::move(piece));
    if (at == std::string::npos)
      return out;
    from = at + 1;
  }
}

void parse_window(const std::string& text, trace_filter& f) {
  const char* option = "--trace-window";
  const size_t colon = text.find(':');
  if (colon == std::string::npos ||
      text.find(':', colon + 1) != std::string::npos)
    throw std::invalid_argument(
        fmt::format("{} '{}': expected T0:T1, two simulated times with their "
                    "units (e.g. 10us:20us; an "
                    "empty T0 is the start, an empty T1 the end)",
                    option, text));
  const std::string t0 = text.substr(0, colon), t1 = text.substr(colon + 1);
  if (!t0.empty())
    f.from = parse_sim_duration(t0, option, true);
  if (!t1.empty())
    f.to = parse_sim_duration(t1, option, true);
  if (f.from > f.to)
    throw std::invalid_argument(fmt::format(
        "{} '{}': T0 is after T1 (the window ends before it starts)", option,
        text));
}

void parse_kinds(const std::string& text, trace_filter& f) {
  f.stages = f.events = f.hops = f.counters = false;
  for (const std::string& k : comma_list(text, "--trace-kinds", "kind")) {
    if (k == "stages")
      f.stages = true;
    else if (k == "events")
      f.events = true;
    else if (k == "hops")
      f.hops = true;
    else if (k == "counters")
      f.counters = true;
    else
      throw std::invalid_argument(fmt::format(
          "--trace-kinds '{}': unknown kind '{}' (known: stages, events, hops, counters)",
          text, k));
  }
  if (f.counters && !f.stages && !f.hops)
    throw std::invalid_argument(fmt::format(
        "--trace-kinds '{}': counters are drawn from the memory servers' spans (stages) and "
        "the hops (hops): give one of them too",
        text));
}

} // namespace

std::string trace_filter_args::first_given() const {
  if (!select.empty())
    return "--trace-select";
  if (window_given || !window.empty())
    return "--trace-window";
  if (kinds_given || !kinds.empty())
    return "--trace-kinds";
  return {};
}

void add_trace_filter_options(CLI::App& cmd, trace_filter_args& a,
                              const std::string& group) {
  cmd.add_option("--trace-select", a.select,
                 "trace only the nodes whose names match one of these patterns "
                 "(a comma list; "
                 "repeatable): `*` any run of characters, `?` one, e.g. "
                 "'sip1.cube2.*' (one "
                 "cube), '*.pe0.*'; a hop is kept when either end is selected")
      ->group(group);
  cmd.add_option("--trace-window", a.window,
                 "trace only records from T0 to T1 in simulated time, T0:T1 "
                 "with units (ps, "
                 "ns, us, ms, s; e.g. 10us:20us, :5us, 2us:); a slice that "
                 "starts before T0 "
                 "is left out whole, one that ends after T1 stays open; a hop "
                 "is kept when its head arrives in the window (its arrow too "
                 "when it is sent in it)")
      ->each([&a](const std::string&) { a.window_given = true; })
      ->group(group);
  cmd.add_option(
         "--trace-kinds", a.kinds,
         "what the trace keeps, a comma list of stages (the units' stages, the "
         "kernel's slices, the memory servers' spans), events (command submitted, "
         "dispatched, tile ready, command complete), hops (every message hop and "
         "receipt), counters (the JSON's counter tracks: memory queues from stages; "
         "links' bytes in flight, units' queues and credits from hops)")
      ->each([&a](const std::string&) { a.kinds_given = true; })
      ->group(group);
}

std::optional<trace_filter> parse_trace_filter(const trace_filter_args& a,
                                               bool hops) {
  if (a.first_given().empty())
    return std::nullopt;
  trace_filter f;
  for (const std::string& s : a.select)
    for (std::string& p : comma_list(s, "--trace-select", "pattern"))
      f.patterns.push_back(std::move(p));
  if (a.window_given || !a.window.empty())
    parse_window(a.window, f);
  if (a.kinds_given || !a.kinds.empty())
    parse_kinds(a.kinds, f);
  f.hops = f.hops || hops;
  return f;
}

} // namespace kb
