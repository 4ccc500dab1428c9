#include "runtime/trace/records_csv.hpp"

#include "runtime/plan/pipeline_plan.hpp"
#include "runtime/trace/stage_pairs.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace kb {

uint64_t write_records_csv(std::ostream& out, const trace_reader& in) {
  const auto& names = in.names();
  out << records_csv_header << '\n';
  stage_pairer pairs;
  uint64_t rows = 0;
  fmt::memory_buffer line;
  in.for_each_merged([&](const trace_record& r) {
    const auto s = pairs.add(r);
    if (!s)
      return;
    // Node names are ids ("sip0.cube0.pe0.pe_dma"): no comma or quote to escape.
    const std::string_view node =
      s->node < names.size() ? std::string_view(names[s->node]) : std::string_view("?");
    line.clear();
    fmt::format_to(std::back_inserter(line), "{},{},{},{},{},{},{},{},{}\n", node,
                   lane_name(s->type), to_string(s->type), s->command, s->tile, s->start.ps(),
                   s->end.ps(), (s->end - s->start).ps(), s->bytes);
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    ++rows;
  });
  return rows;
}

} // namespace kb
