#include "runtime/cli/run_outputs.hpp"

#include "kb_version.hpp"
#include "runtime/config/yaml_json.hpp"
#include "runtime/io/atomic_file.hpp"
#include "runtime/pipeline/pipeline_kinds.hpp"
#include "runtime/report/csv_row.hpp"
#include "runtime/report/run_metrics.hpp"
#include "runtime/trace/trace_file.hpp"

#include "runtime/io/stop_request.hpp"

#include "runtime/io/data_stdout.hpp"
#include "runtime/io/json_writer.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>
#include <fstream>
#include <iostream>
#include <sstream>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace kb {

namespace {

std::mutex command_mutex;
std::optional<std::vector<std::string>> command_override;

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0)
    return "unknown";
  return buf;
}

} // namespace

std::vector<std::string> invocation_command() {
  {
    const std::lock_guard lock(command_mutex);
    if (command_override)
      return *command_override;
  }
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> out;
  for (std::string arg; std::getline(in, arg, '\0');)
    out.push_back(arg);
  if (!out.empty()) // the program as a user names it, not the path it ran from
    out.front() = std::filesystem::path(out.front()).filename().string();
  return out;
}

void set_invocation_command(std::vector<std::string> command) {
  const std::lock_guard lock(command_mutex);
  command_override = std::move(command);
}

int status_after_run(int status) {
  const int sig = stop_request::signal();
  return sig != 0 && status == 0 ? 128 + sig : status;
}

void describe_reproduction(report_input& rep, const YAML::Node& doc, const run_cli& c,
                           uint32_t processes, const run_result& result) {
  rep.version = version;
  rep.git_hash = git_hash;
  rep.machine = [doc](json_writer& j) { write_yaml_as_json(j, doc); };
  rep.stopped_by = result.stopped ? stop_request::signal() : 0;
  rep.invocation.command = invocation_command();
  rep.invocation.host = host_name();
  rep.invocation.seed = c.seed;
  rep.invocation.processes = std::max<uint32_t>(processes, 1);
}

void prepare_outputs(const run_cli& c, machine_options& opts) {
  // A split run's --records come to rank 0 with the results, as --trace's
  // do: every process records in memory (its workers get --record).
  const bool split = c.procs > 1 || !c.peers.empty();
  opts.record = !c.trace.empty() || c.record || (split && !c.records.empty());
  // --json reports per command and stage type the tiles and busy time,
  // summed as the run goes; it keeps no records.
  opts.tally_stages = !c.json.empty() || c.record_stages;
  opts.trace_hops = c.trace_hops;
  if (auto filter = parse_trace_filter(c.trace_filters, c.trace_hops)) {
    if (c.trace.empty() && c.trace_stream.empty() && !c.record)
      throw std::invalid_argument(fmt::format(
        "{}: there is no trace to filter (give --trace or --trace-stream)",
        c.trace_filters.first_given()));
    opts.trace_hops = filter->hops;
    opts.trace_select = std::make_shared<const trace_filter>(std::move(*filter));
  }
  if (!c.trace_stream.empty()) {
    if (c.procs > 1 || !c.peers.empty())
      throw std::invalid_argument(
        "--trace-stream: not with --procs > 1 or --peers (the other processes' nodes record "
        "there; use --trace)");
    opts.stream = std::make_shared<trace_stream_writer>(c.trace_stream, opts.trace_hops);
  }
  if (!c.records.empty()) {
    if (split) {
      // Rank 0 writes them from the merged records at the end; the
      // recorders are the trace's, so a trace filter would cut them too.
      if (const std::string f = c.trace_filters.first_given(); !f.empty())
        throw std::invalid_argument(fmt::format(
          "--records with {}: not in a split run (--procs > 1 or --peers), where the records "
          "come from the trace's recorders; filter the trace in `kernbench trace convert`",
          f));
    } else {
      opts.records = std::make_shared<trace_stream_writer>(c.records, false, "--records file",
                                                           /*stages_only=*/true);
    }
  }
}

std::unique_ptr<heartbeat> start_heartbeat(const run_cli& c, machine_options& opts,
                                           const std::string& who, progress_totals totals) {
  if (c.quiet || c.rank != 0)
    return nullptr;
  opts.progress = std::make_shared<progress_counters>();
  return std::make_unique<heartbeat>(opts.cluster.ranks > 1 ? who + " (rank 0)" : who,
                                     opts.progress, totals, heartbeat_interval());
}

std::vector<std::filesystem::path> apply_out_dir(run_cli& c) {
  std::vector<std::filesystem::path> made;
  if (c.out_dir.empty() || c.rank > 0)
    return made;
  if (c.out_dir == data_stdout::name)
    throw std::invalid_argument("--out -: give a folder (only --json and --csv can go to "
                                "standard output)");
  std::error_code ec;
  // The folders that do not exist yet, outermost first: what this run makes.
  // (symlink_status reports a missing path as not_found, and sets its
  // error code too: that code is not looked at.)
  std::error_code missing;
  for (std::filesystem::path p = std::filesystem::absolute(c.out_dir, ec).lexically_normal();
       !ec && !p.empty() && p != p.parent_path() &&
       !std::filesystem::exists(std::filesystem::symlink_status(p, missing));
       p = p.parent_path())
    made.insert(made.begin(), p);
  ec.clear();
  std::filesystem::create_directories(c.out_dir, ec);
  if (ec || !std::filesystem::is_directory(c.out_dir))
    throw std::invalid_argument(fmt::format("cannot make the --out folder '{}': {}", c.out_dir,
                                   ec ? ec.message() : "a file of that name is in the way"));
  auto inside = [&](std::string& path) {
    if (!path.empty() && path != data_stdout::name && std::filesystem::path(path).is_relative())
      path = (std::filesystem::path(c.out_dir) / path).string();
  };
  for (std::string* p : {&c.json, &c.csv, &c.trace, &c.trace_stream, &c.records, &c.oplog,
                         &c.op_digests, &c.dump_tensors})
    inside(*p);
  if (c.json.empty())
    c.json = (std::filesystem::path(c.out_dir) / "result.json").string();
  return made;
}

void remove_empty_made_folders(const std::vector<std::filesystem::path>& made) {
  for (auto it = made.rbegin(); it != made.rend(); ++it) {
    std::error_code ec;
    // Only a real folder, and only while empty: never a link, never content.
    if (!std::filesystem::is_directory(std::filesystem::symlink_status(*it, ec)) ||
        !std::filesystem::is_empty(*it, ec) || ec)
      return;
    std::filesystem::remove(*it, ec);
  }
}

void check_output_paths(const run_cli& c) {
  if (c.rank > 0)
    return;
  const std::pair<const std::string*, const char*> files[] = {
    {&c.json, "--json file"},   {&c.csv, "--csv file"},
    {&c.trace, "trace file"},   {&c.trace_stream, "--trace-stream file"},
    {&c.records, "--records file"},
    {&c.oplog, "--oplog file"}, {&c.op_digests, "--op-digests file"}};
  // Two outputs on one file: the second written would replace the first
  // (a link or a relative spelling of the same file counts too).
  std::vector<std::pair<std::filesystem::path, const char*>> seen;
  if (!c.out_dir.empty())
    for (const char* name : {"machine.json", "summary.txt"})
      seen.emplace_back(std::filesystem::path(c.out_dir) / name,
                        name[0] == 'm' ? "--out machine.json" : "--out summary.txt");
  for (auto& [at, what] : seen) {
    std::error_code ec;
    at = std::filesystem::weakly_canonical(at, ec);
  }
  for (const auto& [path, what] : files) {
    if (path->empty() || *path == data_stdout::name)
      continue;
    std::error_code ec;
    std::filesystem::path at = std::filesystem::weakly_canonical(*path, ec);
    if (ec)
      at = std::filesystem::absolute(*path, ec).lexically_normal();
    for (const auto& [other, other_what] : seen)
      if (other == at)
        throw std::invalid_argument(fmt::format(
          "{} '{}' is also the {}: each output needs its own path (the second written would "
          "replace the first)",
          what, *path, other_what));
    seen.emplace_back(at, what);
  }
  for (const auto& [path, what] : files) {
    if (path->empty() || *path == data_stdout::name)
      continue;
    std::error_code ec;
    const auto st = std::filesystem::status(*path, ec);
    // A FIFO, a pipe or a device is written in place at the end (opening
    // a FIFO now would wait for its reader).
    if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
        !std::filesystem::is_directory(st))
      continue;
    try {
      atomic_file probe(*path, what); // fails as the write would; removed unwritten
    } catch (const output_error& e) {
      throw std::invalid_argument(e.what()); // known before the run: bad input
    }
  }
  if (!c.dump_tensors.empty()) {
    std::error_code ec;
    const std::filesystem::path dir(c.dump_tensors);
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
      throw std::invalid_argument(fmt::format("cannot write --dump-tensors '{}': it is not a folder",
                                     c.dump_tensors));
    // The nearest folder that exists must take new entries.
    std::filesystem::path up = std::filesystem::absolute(dir, ec);
    while (!up.empty() && !std::filesystem::exists(up, ec) && up != up.parent_path())
      up = up.parent_path();
    if (!std::filesystem::is_directory(up, ec) || ::access(up.c_str(), W_OK | X_OK) != 0)
      throw std::invalid_argument(fmt::format("cannot write --dump-tensors '{}': '{}' {}",
                                     c.dump_tensors, up.string(),
                                     std::filesystem::is_directory(up, ec)
                                       ? "takes no new entries (permissions)"
                                       : "is not a folder"));
  }
}

void print_summary(const run_cli& c, report_input& rep) {
  std::ostringstream text;
  write_summary(text, rep);
  std::cout << text.str();
  if (!c.out_dir.empty())
    rep.summary_text = text.str();
}

void write_outputs(const run_cli& c, const report_input& rep, const machine_options& opts) {
  if (!c.out_dir.empty() && c.rank == 0) {
    const std::filesystem::path dir(c.out_dir);
    json_writer machine;
    if (rep.machine)
      rep.machine(machine);
    write_file_atomically((dir / "machine.json").string(), "--out machine.json",
                          machine.str() + "\n");
    write_file_atomically((dir / "summary.txt").string(), "--out summary.txt", rep.summary_text);
  }
  if (!c.json.empty())
    write_file_atomically(c.json, "--json file", report_json(rep));
  if (!c.trace.empty())
    write_trace(c.trace, rep.names, rep.records, &message_kind_name,
                opts.trace_select ? opts.trace_select->cut() : chrome_trace_cut{});
  auto mark = [&](const char* phase) {
    if (rep.phases)
      rep.phases->mark(phase);
  };
  mark("write the outputs");
  // Nothing of the machine may run on (a kernel unwinding, say) while the
  // trace stream is finished.
  if (opts.teardown) {
    opts.teardown->wait();
    mark("tear down");
  }
  if (opts.stream) {
    opts.stream->finish(rep.names);
    mark("finish the trace stream");
  }
  if (opts.records) {
    opts.records->finish(rep.names);
    mark("finish the records");
  } else if (!c.records.empty() && c.rank == 0) {
    write_stage_stream(c.records, "--records file", rep.names, rep.records);
    mark("write the records");
  }
  if (!c.csv.empty()) {
    append_csv_row(c.csv, "--csv file", run_csv_header(),
                   run_csv_fields(rep, compute_metrics(rep)));
    mark("append the CSV row");
  }
}

} // namespace kb
