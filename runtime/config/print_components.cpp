#include "runtime/config/print_components.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace kb {

namespace {

/// Writes `line` without trailing blanks (empty last columns) and a newline.
void put_line(std::ostream& out, std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  out << line << '\n';
}

std::string_view or_required(const param_doc& p) {
  return p.default_value.empty() ? std::string_view{"required"}
                                 : std::string_view{p.default_value};
}

void print_impl(std::ostream& out, const impl_doc& d) {
  put_line(out, fmt::format("  {}: {}", d.impl, d.description));
  if (d.params.empty()) {
    fmt::print(out, "    keys: (none)\n");
  } else {
    std::size_t wn = 0, wt = 0, wd = 0;
    for (const auto& p : d.params) {
      wn = std::max(wn, p.name.size());
      wt = std::max(wt, p.type.size());
      wd = std::max(wd, or_required(p).size());
    }
    fmt::print(out, "    keys:\n");
    for (const auto& p : d.params)
      put_line(out, fmt::format("      {:<{}}  {:<{}}  {:<{}}  {}", p.name, wn, p.type, wt,
                                or_required(p), wd, p.doc));
  }
  if (!d.ports.empty()) {
    std::string ports;
    for (const port_doc& p : d.ports)
      ports += fmt::format("{}{} -> {}", ports.empty() ? "" : ", ", p.name, p.to);
    put_line(out, "    ports: " + ports);
  }
  if (d.stats.empty())
    return;
  std::size_t wn = 0, wu = 0;
  for (const auto& s : d.stats) {
    wn = std::max(wn, s.name.size());
    wu = std::max(wu, s.unit.size());
  }
  fmt::print(out, "    statistics:\n");
  for (const auto& s : d.stats)
    put_line(out, fmt::format("      {:<{}}  {:<{}}  {}", s.name, wn, s.unit, wu, s.doc));
}

} // namespace

void print_components(std::ostream& out, const impl_catalog& impls) {
  bool first = true;
  for (const std::string& kind : impls.kinds()) {
    if (!first)
      out << '\n';
    first = false;
    out << kind << '\n';
    for (const impl_doc* d : impls.of_kind(kind))
      print_impl(out, *d);
  }
}

} // namespace kb
