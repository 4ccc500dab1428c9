#pragma once
// `kernbench records convert FILE --csv OUT`: every tile's stages of a run
// (`run --records`, or any trace with stages) as one CSV row each, for
// tools. Rows come in the order the stages ended (then node), so the bytes
// are the same whatever the threads that wrote the stream.

#include "runtime/trace/trace_stream_reader.hpp"

#include <cstdint>
#include <ostream>

namespace kb {

/// The CSV's first line.
inline constexpr const char* records_csv_header =
  "node,lane,stage,command,tile,start_ps,end_ps,busy_ps,bytes";

/// Writes the header and one row per stage; returns the rows written.
uint64_t write_records_csv(std::ostream& out, const trace_reader& in);

} // namespace kb
