#include "runtime/report/fabric_report.hpp"

#include "runtime/io/json_writer.hpp"
#include "runtime/machine/memory_stats.hpp"
#include "runtime/engine/link_stats.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <map>
#include <string_view>

namespace kb {

namespace {

/// "sipS" and "sipS.cubeC" of a node id ("" outside any cube).
std::pair<std::string, std::string> area_of(std::string_view name) {
  const auto a = name.find('.');
  if (a == std::string_view::npos || name.substr(0, 3) != "sip")
    return {};
  const auto b = name.find('.', a + 1);
  if (b == std::string_view::npos || name.substr(a + 1, 4) != "cube")
    return {std::string(name.substr(0, a)), {}};
  return {std::string(name.substr(0, a)), std::string(name.substr(0, b))};
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

double percent(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

} // namespace

fabric_use fabric_use_of(const run_result& r) {
  fabric_use f;
  std::map<std::string, fabric_area_use> cubes, sips;
  auto cube = [&](const std::string& c) -> fabric_area_use& {
    auto& a = cubes[c];
    a.name = c;
    return a;
  };
  for (const auto& n : r.nodes) {
    const auto [sip, c] = area_of(n.name);
    if (c.empty())
      continue;
    if (ends_with(n.name, ".hbm")) {
      cube(c).hbm_read_bytes += figure_or_zero(n, memory_stats.read_bytes);
      cube(c).hbm_write_bytes += figure_or_zero(n, memory_stats.write_bytes);
      cube(c).hbm_busy_ps += figure_or_zero(n, memory_stats.busy_ps);
    } else if (ends_with(n.name, ".sram")) {
      cube(c).sram_bytes +=
        figure_or_zero(n, memory_stats.read_bytes) + figure_or_zero(n, memory_stats.write_bytes);
    }
    for (const auto& fig : n.figures) {
      if (!fig.is(link_stats::bytes))
        continue;
      const std::string dst(fig.qualifier);
      const auto [dsip, dcube] = area_of(dst);
      if (dcube.empty() || dcube == c)
        continue;
      f.links.push_back({n.name, dst, dsip == sip ? "ucie" : "inter-sip", fig.value,
                         figure_or_zero(n, link_stats::busy_ps, dst)});
      cube(c).bytes_out += fig.value;
      cube(dcube).bytes_in += fig.value;
    }
  }
  std::sort(f.links.begin(), f.links.end(), [](const auto& a, const auto& b) {
    return std::tie(b.busy_ps, a.src, a.dst) < std::tie(a.busy_ps, b.src, b.dst);
  });
  for (auto& [name, a] : cubes) {
    auto& s = sips[area_of(name).first];
    s.name = area_of(name).first;
    s.hbm_read_bytes += a.hbm_read_bytes;
    s.hbm_write_bytes += a.hbm_write_bytes;
    s.hbm_busy_ps += a.hbm_busy_ps;
    s.sram_bytes += a.sram_bytes;
    f.cubes.push_back(a);
  }
  for (const auto& l : f.links)
    if (std::string_view(l.kind) == "inter-sip") {
      sips[area_of(l.src).first].bytes_out += l.bytes;
      sips[area_of(l.dst).first].bytes_in += l.bytes;
    }
  for (auto& [name, s] : sips)
    f.sips.push_back(s);
  return f;
}

void write_fabric_summary(std::ostream& out, const fabric_use& f, uint64_t end_ps) {
  if (f.cubes.size() < 2)
    return; // one cube: the tables above say it all
  fmt::print(out, "\nlinks between cubes (UCIe, inter-SIP), busiest first\n");
  if (f.links.empty())
    fmt::print(out, "  none carried traffic\n");
  for (const auto& l : f.links)
    fmt::print(out, "  {:<9} {:<24} -> {:<24} {:>14} B  busy {:>5.1f}%\n", l.kind, l.src, l.dst,
               l.bytes, percent(l.busy_ps, end_ps));
  auto table = [&](const char* title, const std::vector<fabric_area_use>& areas, bool hbm_util) {
    fmt::print(out, "\n{}\n  {:<12} {:>14} {:>14} {:>7} {:>14} {:>14} {:>14}\n", title, "",
               "HBM read B", "HBM write B", "HBM %", "SRAM B", "out B", "in B");
    for (const auto& a : areas)
      fmt::print(out, "  {:<12} {:>14} {:>14} {:>7} {:>14} {:>14} {:>14}\n", a.name,
                 a.hbm_read_bytes, a.hbm_write_bytes,
                 hbm_util ? fmt::format("{:.1f}%", percent(a.hbm_busy_ps, end_ps)) : "-",
                 a.sram_bytes, a.bytes_out, a.bytes_in);
  };
  table("per cube (out/in: bytes over UCIe and inter-SIP links)", f.cubes, true);
  if (f.sips.size() > 1)
    table("per SIP (out/in: bytes over inter-SIP links)", f.sips, false);
}

void write_fabric_json(json_writer& j, const fabric_use& f) {
  j.begin_object();
  j.key("links").begin_array();
  for (const auto& l : f.links)
    j.begin_object()
      .field("kind", l.kind)
      .field("src", l.src)
      .field("dst", l.dst)
      .field("bytes", l.bytes)
      .field("busy_ps", l.busy_ps)
      .end_object();
  j.end_array();
  auto areas = [&](const char* key, const std::vector<fabric_area_use>& v) {
    j.key(key).begin_array();
    for (const auto& a : v)
      j.begin_object()
        .field("name", a.name)
        .field("hbm_read_bytes", a.hbm_read_bytes)
        .field("hbm_write_bytes", a.hbm_write_bytes)
        .field("hbm_busy_ps", a.hbm_busy_ps)
        .field("sram_bytes", a.sram_bytes)
        .field("bytes_out", a.bytes_out)
        .field("bytes_in", a.bytes_in)
        .end_object();
    j.end_array();
  };
  areas("cubes", f.cubes);
  areas("sips", f.sips);
  j.end_object();
}

} // namespace kb
