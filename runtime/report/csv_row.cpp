#include "runtime/report/csv_row.hpp"

#include "runtime/io/atomic_file.hpp"

#include <fmt/format.h>

#include <fstream>

namespace kb {

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos)
    return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i)
      out += ',';
    out += csv_field(fields[i]);
  }
  return out + "\n";
}

std::vector<std::string> csv_split(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::vector<std::string> run_csv_header() {
  return {"topology",          "set",
          "program",           "pes",
          "end_ps",            "max_latency_ps",
          "kernel_latency_ps",
          "flops",             "achieved_flop_per_s",
          "peak_flop_per_s",   "flop_utilisation",
          "hbm_bytes",         "achieved_hbm_bytes_per_s",
          "peak_hbm_bytes_per_s", "hbm_utilisation",
          "busiest_unit_1",    "busiest_utilisation_1",
          "busiest_unit_2",    "busiest_utilisation_2",
          "busiest_unit_3",    "busiest_utilisation_3",
          "events",            "wall_s",
          "events_per_s",
          // What reproduces the row (as the JSON's last fields).
          "schema_version",    "complete",
          "kernbench_version", "git",
          "seed",              "host",
          "threads",           "processes",
          "command"};
}

namespace {

/// The command line as a shell reads it back: words with anything but
/// [A-Za-z0-9_./=:,+@%-] in single quotes.
std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty())
      out += ' ';
    const bool plain = !w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                         "0123456789_./=:,+@%-") == std::string::npos;
    if (plain) {
      out += w;
      continue;
    }
    out += '\'';
    for (char c : w)
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

} // namespace

std::vector<std::string> run_csv_fields(const report_input& in, const run_metrics& m) {
  auto num = [](double v) { return fmt::format("{:.6g}", v); };
  std::string set;
  for (const auto& o : in.overrides)
    set += (set.empty() ? "" : " ") + o;
  std::vector<std::string> f{in.topology_file,
                             set,
                             in.label.empty() ? "idle" : in.label,
                             std::to_string(in.pes.size()),
                             std::to_string(m.end_ps),
                             std::to_string(m.max_latency_ps),
                             std::to_string(m.kernel_latency_ps),
                             std::to_string(m.flops),
                             num(m.achieved_flops),
                             num(m.peak_flops),
                             num(m.peak_flops > 0 ? m.achieved_flops / m.peak_flops : 0),
                             std::to_string(m.hbm_bytes),
                             num(m.achieved_hbm_bps),
                             num(m.peak_hbm_bps),
                             num(m.peak_hbm_bps > 0 ? m.achieved_hbm_bps / m.peak_hbm_bps : 0)};
  for (size_t i = 0; i < 3; ++i) {
    f.push_back(i < m.busiest.size() ? m.busiest[i].unit : "");
    f.push_back(i < m.busiest.size() ? num(m.busiest[i].util) : "");
  }
  f.push_back(std::to_string(m.events));
  f.push_back(num(m.wall_s));
  f.push_back(num(m.wall_s > 0 ? m.events / m.wall_s : 0));
  f.push_back(report_schema_version);
  f.push_back(in.stopped_by == 0 ? "true" : "false");
  f.push_back(in.version);
  f.push_back(in.git_hash);
  f.push_back(std::to_string(in.invocation.seed));
  f.push_back(in.invocation.host);
  f.push_back(std::to_string(in.threads));
  f.push_back(std::to_string(in.invocation.processes));
  f.push_back(shell_words(in.invocation.command));
  return f;
}

void append_csv_row(const std::string& path, const std::string& what,
                    const std::vector<std::string>& header,
                    const std::vector<std::string>& fields) {
  const std::string head = csv_line(header);
  atomic_file out(path, what);
  bool has_rows = false;
  // Only a regular file has rows to keep: a device or FIFO is written in
  // place, and reading one (/dev/zero, a pipe) may never end.
  if (!out.in_place()) {
    if (std::ifstream in{out.target(), std::ios::binary}) {
      std::string first(head.size(), '\0');
      in.read(first.data(), static_cast<std::streamsize>(first.size()));
      const auto got = static_cast<size_t>(in.gcount());
      if (got > 0 && (got != head.size() || first != head))
        throw output_error(fmt::format(
          "{} '{}': its first line is not the header of these rows; refusing to append "
          "(write to a new file)",
          what, path));
      if (got > 0) {
        // The old rows, streamed: the file may be larger than memory.
        in.clear();
        in.seekg(-1, std::ios::end);
        const bool ends_line = in.get() == '\n';
        in.seekg(0);
        out.stream() << in.rdbuf();
        if (!ends_line)
          out.stream() << '\n';
        has_rows = true;
      }
    }
  }
  if (!has_rows)
    out.stream() << head;
  out.stream() << csv_line(fields);
  out.commit();
}

} // namespace kb
