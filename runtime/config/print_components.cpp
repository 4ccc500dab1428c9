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

void print_impls(std::ostream& out,
                 const std::vector<const impl_entry*>& impls) {
  std::size_t w = 0;
  for (const auto* e : impls)
    w = std::max(w, e->impl.size());
  for (const auto* e : impls)
    put_line(out, fmt::format("    {:<{}}  {}", e->impl, w, e->description));
}

void print_kind(std::ostream& out, const kind_doc& k,
                const impl_registry& impls) {
  put_line(out, fmt::format("{}: {}", k.kind, k.summary));
  const auto mine = impls.of_kind(k.kind);
  if (mine.empty()) {
    fmt::print(out, "  impls: (none registered)\n");
  } else {
    fmt::print(out, "  impls:\n");
    print_impls(out, mine);
  }
  if (k.params.empty()) {
    fmt::print(out, "  keys: (none)\n");
    return;
  }
  std::size_t wn = 0, wt = 0, wd = 0;
  for (const auto& p : k.params) {
    wn = std::max(wn, p.name.size());
    wt = std::max(wt, p.type.size());
    wd = std::max(wd, or_required(p).size());
  }
  fmt::print(out, "  keys:\n");
  for (const auto& p : k.params)
    put_line(out, fmt::format("    {:<{}}  {:<{}}  {:<{}}  {}", p.name, wn,
                              p.type, wt, or_required(p), wd, p.doc));
}

} // namespace

void print_components(std::ostream& out, const kind_catalog& kinds,
                      const impl_registry& impls) {
  bool first = true;
  for (const kind_doc* k : kinds.all_sorted()) {
    if (!first)
      out << '\n';
    first = false;
    print_kind(out, *k, impls);
  }
  std::vector<const impl_entry*> orphans;
  for (const impl_entry* e : impls.all_sorted())
    if (kinds.find(e->kind) == nullptr)
      orphans.push_back(e);
  if (orphans.empty())
    return;
  if (!first)
    out << '\n';
  fmt::print(out, "impls of undocumented kinds:\n");
  std::size_t w = 0;
  for (const auto* e : orphans)
    w = std::max(w, e->impl.size());
  for (const auto* e : orphans)
    fmt::print(out, "    {:<{}}  kind {}\n", e->impl, w, e->kind);
}

} // namespace kb
