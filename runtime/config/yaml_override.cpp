#include "runtime/config/yaml_override.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

namespace kb {

namespace {

/// The child `key` of map `m`, or an undefined node; never inserts.
YAML::Node child_of(const YAML::Node& m, const std::string& key) {
  if (!m.IsMap())
    return YAML::Node(YAML::NodeType::Undefined);
  for (auto it = m.begin(); it != m.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key)
      return it->second;
  return YAML::Node(YAML::NodeType::Undefined);
}

std::vector<std::string> keys_of(const YAML::Node& m) {
  std::vector<std::string> out;
  if (m.IsMap())
    for (auto it = m.begin(); it != m.end(); ++it)
      if (it->first.IsScalar())
        out.push_back(it->first.Scalar());
  return out;
}

std::string where(const std::string& path) {
  return path.empty() ? std::string("the topology") : path;
}

/// The keys of `m`, and those of its `components` (which a key may skip).
std::string has(const YAML::Node& m) {
  std::string out = fmt::format("{}", fmt::join(keys_of(m), ", "));
  const YAML::Node comps = child_of(m, "components");
  if (comps.IsDefined() && comps.IsMap())
    out += fmt::format("; components: {}", fmt::join(keys_of(comps), ", "));
  return out;
}

std::vector<std::string> split_dots(const std::string& key) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t dot = key.find('.', start);
    out.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos)
      return out;
    start = dot + 1;
  }
}

} // namespace

yaml_override parse_override(const std::string& text, const std::string& opt) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw std::invalid_argument(
      fmt::format("{} '{}': expected KEY=VALUE, e.g. cube.pe_template.pe_gemm.mac_rows=64", opt,
                  text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void apply_override(YAML::Node& doc, const yaml_override& o, const std::string& opt) {
  const std::vector<std::string> segs = split_dots(o.key);
  for (const auto& s : segs)
    if (s.empty())
      throw std::invalid_argument(fmt::format("{} {}: empty segment in the key", opt, o.key));
  YAML::Node value;
  try {
    value = YAML::Load(o.value);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(
      fmt::format("{} {}={}: the value is not valid YAML: {}", opt, o.key, o.value, e.msg));
  }
  YAML::Node cur;
  cur.reset(doc);
  std::string path; // the real path, with any `components` level put back
  for (size_t i = 0; i + 1 < segs.size(); ++i) {
    YAML::Node next = child_of(cur, segs[i]);
    std::string step = segs[i];
    if (!next.IsDefined()) {
      next = child_of(child_of(cur, "components"), segs[i]);
      step = "components." + segs[i];
    }
    if (!next.IsDefined() || !next.IsMap())
      throw std::invalid_argument(fmt::format("{} {}: no key '{}' in {} (it has: {})", opt,
                                              o.key, segs[i], where(path), has(cur)));
    path += (path.empty() ? "" : ".") + step;
    cur.reset(next);
  }
  const std::string& last = segs.back();
  // A component's keys and the document's own top-level keys may be set
  // when the file leaves them at their defaults (e.g. fabric_credits): the
  // kind's and the loader's key lists then refuse an unknown one by name.
  const bool open = child_of(cur, "impl").IsDefined() || path.empty();
  if (!child_of(cur, last).IsDefined() && !open)
    throw std::invalid_argument(fmt::format("{} {}: no key '{}' in {} (it has: {})", opt, o.key,
                                            last, where(path), has(cur)));
  cur[last] = value;
}

} // namespace kb
