#include "runtime/cli/run_outputs.hpp"

#include "kb_version.hpp"
#include "runtime/config/yaml_json.hpp"
#include "runtime/report/atomic_file.hpp"
#include "runtime/report/csv_row.hpp"
#include "runtime/report/run_metrics.hpp"
#include "runtime/trace/trace_file.hpp"

#include <stdexcept>

namespace kb {

void describe_reproduction(report_input& rep, const YAML::Node& doc) {
  rep.version = version;
  rep.git_hash = git_hash;
  rep.machine = [doc](json_writer& j) { write_yaml_as_json(j, doc); };
}

void prepare_outputs(const run_cli& c, driver_options& opts) {
  opts.record = !c.trace.empty() || c.record;
  // --json reports per command and stage type the tiles and busy time,
  // summed as the run goes; it keeps no records.
  opts.tally_stages = !c.json.empty() || c.record_stages;
  opts.trace_hops = c.trace_hops;
  if (!c.trace_stream.empty()) {
    if (c.procs > 1 || !c.peers.empty())
      throw std::invalid_argument(
        "--trace-stream: not with --procs > 1 or --peers (the other processes' nodes record "
        "there; use --trace)");
    opts.stream = std::make_shared<trace_stream_writer>(c.trace_stream, c.trace_hops);
  }
}

std::unique_ptr<heartbeat> start_heartbeat(const run_cli& c, driver_options& opts,
                                           const std::string& who, progress_totals totals) {
  if (c.quiet || c.rank != 0)
    return nullptr;
  opts.progress = std::make_shared<progress_counters>();
  return std::make_unique<heartbeat>(opts.cluster.ranks > 1 ? who + " (rank 0)" : who,
                                     opts.progress, totals, heartbeat_interval());
}

void write_outputs(const run_cli& c, const report_input& rep, const driver_options& opts) {
  if (!c.json.empty())
    write_file_atomically(c.json, "--json file", report_json(rep));
  if (!c.trace.empty())
    write_trace(c.trace, rep.names, rep.records);
  // Nothing of the machine may run on (a kernel unwinding, say) while the
  // trace stream is finished.
  if (opts.teardown)
    opts.teardown->wait();
  if (opts.stream)
    opts.stream->finish(rep.names);
  if (!c.csv.empty())
    append_csv_row(c.csv, "--csv file", run_csv_header(),
                   run_csv_fields(rep, compute_metrics(rep)));
}

} // namespace kb
