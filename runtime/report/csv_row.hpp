#pragma once
// CSV (RFC 4180) rows: the one summary row of `kernbench run --csv` and the
// rows of `kernbench sweep`, which are that row with the swept parameters
// in front.

#include "runtime/report/run_metrics.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// `s` quoted when it holds a comma, quote, CR or LF (quotes doubled).
std::string csv_field(std::string_view s);
/// Fields joined by commas, each through csv_field, ending in "\n".
std::string csv_line(const std::vector<std::string>& fields);
/// Splits one CSV line (without its newline) into fields; the inverse of
/// csv_line for lines it wrote.
std::vector<std::string> csv_split(std::string_view line);

/// Column names of the run summary row.
std::vector<std::string> run_csv_header();
/// The run summary row: what ran, latency, achieved vs peak FLOP/s and HBM
/// bandwidth, the three busiest lanes, events, wall time and events/s.
std::vector<std::string> run_csv_fields(const report_input& in, const run_metrics& m);

/// Appends the row to `path` through an atomic_file (the old content,
/// streamed, then the row; the header first when the file is new or empty).
/// A file whose first line is not this header is refused (output_error
/// naming it): rows of another layout must not be mixed in. A device, FIFO
/// or pipe is never read: it gets the header and the row.
void append_csv_row(const std::string& path, const std::string& what,
                    const std::vector<std::string>& header,
                    const std::vector<std::string>& fields);

} // namespace kb
