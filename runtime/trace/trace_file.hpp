#pragma once
// Trace files: the Cap'n Proto form (TraceFile) and its conversion to the
// Chrome trace-event JSON that Perfetto and chrome://tracing open.

#include "runtime/trace/chrome_trace.hpp"
#include "runtime/trace/trace_recorder.hpp"

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// Writes a TraceFile: node names by id, then the records in key order.
void write_trace_capnp(const std::string& path, const std::vector<std::string>& names,
                       const std::vector<trace_record>& records);
/// Reads a TraceFile written by write_trace_capnp. Throws
/// std::runtime_error naming the file if it is not one.
void read_trace_capnp(const std::string& path, std::vector<std::string>& names,
                      std::vector<trace_record>& records);
/// As read_trace_capnp, from the file's bytes; `name` names it in errors.
void read_trace_bytes(std::string_view bytes, const std::string& name,
                      std::vector<std::string>& names, std::vector<trace_record>& records);
/// Chrome trace-event JSON (chrome_trace_writer; docs/adr/0039). Times in
/// microseconds with picosecond precision. `cut`: what the trace's filter
/// leaves out (trace_filter::cut).
void write_trace_json(std::ostream& out, const std::vector<std::string>& names,
                      const std::vector<trace_record>& records,
                      chrome_trace_writer::kind_namer kinds = nullptr,
                      chrome_trace_cut cut = {});

/// Writes `path` as JSON if it ends in ".json", gzipped JSON if it ends in
/// ".json.gz", else as Cap'n Proto.
/// `kinds` names the hops' message kinds in the JSON (null: by number).
void write_trace(const std::string& path, const std::vector<std::string>& names,
                 const std::vector<trace_record>& records,
                 chrome_trace_writer::kind_namer kinds = nullptr,
                 chrome_trace_cut cut = {});

/// Whether a trace named `path` is Chrome JSON (".json" or ".json.gz").
bool is_json_trace_name(std::string_view path);
/// Writes the file `path` (an atomic_file; `what` names it in errors) with
/// `write`, gzipped when the name ends in ".gz".
void write_text_file(const std::string& path, const std::string& what,
                     const std::function<void(std::ostream&)>& write);

} // namespace kb
