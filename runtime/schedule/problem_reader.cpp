#include "runtime/schedule/problem_reader.hpp"

#include "runtime/config/config_error.hpp"
#include "runtime/config/yaml_source.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

namespace kb::sched {

namespace {

/// Largest single latency accepted; their sums are bounded by check_problem
/// (max_schedule_cycles).
constexpr int64_t k_max_latency = std::numeric_limits<int32_t>::max();
constexpr int64_t k_max_u32 = std::numeric_limits<uint32_t>::max();

constexpr std::string_view k_non_negative = "a non-negative integer";
constexpr std::string_view k_positive = "a positive integer";

/// How a value reads in messages.
std::string describe(const YAML::Node& v) {
  switch (v.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar:
      return v.Tag() == "!" ? fmt::format("the string \"{}\"", v.Scalar())
                            : fmt::format("'{}'", v.Scalar());
    default: return "nothing";
  }
}

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

std::string index_path(const std::string& parent, std::size_t i) {
  return fmt::format("{}[{}]", parent, i);
}

std::string join(const std::vector<std::string>& names) {
  if (names.empty())
    return "none";
  std::string out;
  for (const auto& n : names) {
    if (!out.empty())
      out.append(", ");
    out.append(n);
  }
  return out;
}

/// One `key: value` of a map, in file order.
struct entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

/// The parsing context: the file name for every error.
class reader {
public:
  explicit reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& path,
                         std::string message) const {
    throw config_error({file_, line_of(at.Mark())}, path, std::move(message));
  }

  [[noreturn]] void fail_type(const YAML::Node& v, const std::string& path,
                              std::string_view expected) const {
    fail(v, path, fmt::format("expected {}, got {}", expected, describe(v)));
  }

  /// The entries of the map `node` (at `path`); every key must be a scalar
  /// named in `known`, and none may repeat.
  std::vector<entry> entries(const YAML::Node& node, const std::string& path,
                             std::initializer_list<std::string_view> known) const {
    if (!node.IsMap())
      fail_type(node, path, "a map");
    std::vector<entry> out;
    for (const auto& kv : node) {
      if (!kv.first.IsScalar())
        fail(kv.first, path, fmt::format("expected a key name, got {}", describe(kv.first)));
      std::string key = kv.first.Scalar();
      bool is_known = known.size() == 0;
      for (auto k : known)
        is_known = is_known || k == key;
      if (!is_known) {
        std::vector<std::string> names(known.begin(), known.end());
        fail(kv.first, child_path(path, key),
             fmt::format("unknown key '{}' (known: {})", key, join(names)));
      }
      for (const auto& prev : out)
        if (prev.key == key)
          fail(kv.first, child_path(path, key),
               fmt::format("duplicate key '{}' (first at line {})", key,
                           line_of(prev.key_node.Mark())));
      out.push_back({std::move(key), kv.first, kv.second});
    }
    return out;
  }

  /// A scalar integer in [lo, hi]; quoted strings are not numbers.
  int64_t integer(const YAML::Node& v, const std::string& path, int64_t lo, int64_t hi,
                  std::string_view expected) const {
    if (!v.IsScalar() || v.Tag() == "!")
      fail_type(v, path, expected);
    const std::string& text = v.Scalar();
    const char* first = text.data();
    const char* last = text.data() + text.size();
    if (first != last && *first == '+')
      ++first;
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec == std::errc::result_out_of_range)
      fail(v, path, fmt::format("value {} is out of range", describe(v)));
    if (ec != std::errc{} || ptr != last || first == last)
      fail_type(v, path, expected);
    if (value < lo)
      fail_type(v, path, expected);
    if (value > hi)
      fail(v, path, fmt::format("value {} is out of range (at most {})", describe(v), hi));
    return value;
  }

  uint32_t u32(const YAML::Node& v, const std::string& path, uint32_t lo = 0) const {
    return static_cast<uint32_t>(
      integer(v, path, lo, k_max_u32, lo == 0 ? k_non_negative : k_positive));
  }

  bool boolean(const YAML::Node& v, const std::string& path) const {
    if (v.IsScalar() && v.Tag() != "!") {
      const std::string& t = v.Scalar();
      if (t == "true" || t == "True" || t == "TRUE")
        return true;
      if (t == "false" || t == "False" || t == "FALSE")
        return false;
    }
    fail_type(v, path, "true or false");
  }

  /// A non-empty name (quoted or plain scalar).
  std::string name(const YAML::Node& v, const std::string& path) const {
    if (!v.IsScalar())
      fail_type(v, path, "a name");
    if (v.Scalar().empty())
      fail(v, path, "the name is empty");
    return v.Scalar();
  }

  /// A list (an explicit `null` or `key:` alone reads as empty).
  void require_list(const YAML::Node& v, const std::string& path) const {
    if (!v.IsSequence() && !v.IsNull())
      fail_type(v, path, "a list");
  }

  [[noreturn]] void missing(const YAML::Node& map, const std::string& path,
                            std::string_view key) const {
    fail(map, path, fmt::format("missing required key '{}'", key));
  }

  void read_pools(problem& p, const YAML::Node& node, const std::string& path) const {
    if (node.IsNull()) // `resources:` alone: no pools
      return;
    for (const auto& e : entries(node, path, {})) {
      const std::string at = child_path(path, e.key);
      if (e.key.empty())
        fail(e.key_node, at, "a resource pool name is empty");
      p.pools.push_back({e.key, u32(e.value, at, 1)});
    }
  }

  void read_attributes(problem& p, const YAML::Node& node, const std::string& path) const {
    if (node.IsNull())
      return;
    for (const auto& e : entries(node, path, {"force_serial_execution", "serial_threshold"})) {
      const std::string at = child_path(path, e.key);
      if (e.key == "force_serial_execution")
        p.force_serial_execution = boolean(e.value, at);
      else
        p.serial_threshold = u32(e.value, at);
    }
  }

  std::vector<pool_use> read_cycle(const problem& p, const YAML::Node& node,
                                   const std::string& path) const {
    std::vector<pool_use> uses;
    if (node.IsNull())
      return uses;
    for (const auto& e : entries(node, path, {})) {
      const std::string at = child_path(path, e.key);
      auto pool = p.find_pool(e.key);
      if (!pool) {
        std::vector<std::string> names;
        for (const auto& ps : p.pools)
          names.push_back(ps.name);
        fail(e.key_node, at,
             fmt::format("unknown resource pool '{}' (known: {})", e.key, join(names)));
      }
      uses.push_back({*pool, u32(e.value, at)});
    }
    return uses;
  }

  op_spec read_op(const problem& p, const YAML::Node& node, const std::string& path) const {
    op_spec op;
    op.line = line_of(node.Mark());
    bool named = false;
    for (const auto& e : entries(node, path, {"name", "latency", "reservation", "max_depth",
                                              "gid", "leader_gid"})) {
      const std::string at = child_path(path, e.key);
      if (e.key == "name") {
        op.name = name(e.value, at);
        named = true;
      } else if (e.key == "latency") {
        op.latency = integer(e.value, at, 0, k_max_latency, k_non_negative);
      } else if (e.key == "reservation") {
        require_list(e.value, at);
        for (std::size_t i = 0; i < e.value.size(); ++i)
          op.reservation.push_back(read_cycle(p, e.value[i], index_path(at, i)));
      } else if (e.key == "max_depth") {
        op.max_depth = u32(e.value, at);
      } else {
        const int64_t id = integer(e.value, at, std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max(), "an integer");
        (e.key == "gid" ? op.gid : op.leader_gid) = id;
      }
    }
    if (!named)
      missing(node, path, "name");
    return op;
  }

  edge_spec read_edge(const problem& p, const YAML::Node& node, const std::string& path) const {
    edge_spec edge;
    edge.line = line_of(node.Mark());
    std::optional<int64_t> latency;
    bool has_from = false;
    bool has_to = false;
    for (const auto& e : entries(node, path, {"from", "to", "latency", "distance"})) {
      const std::string at = child_path(path, e.key);
      if (e.key == "from" || e.key == "to") {
        const std::string op_name = name(e.value, at);
        auto op = p.find_op(op_name);
        if (!op)
          fail(e.value, at, fmt::format("unknown op '{}'", op_name));
        (e.key == "from" ? edge.from : edge.to) = *op;
        (e.key == "from" ? has_from : has_to) = true;
      } else if (e.key == "latency") {
        latency = integer(e.value, at, 0, k_max_latency, k_non_negative);
      } else {
        edge.distance = u32(e.value, at);
      }
    }
    if (!has_from)
      missing(node, path, "from");
    if (!has_to)
      missing(node, path, "to");
    edge.latency = latency ? *latency : p.ops[edge.from].latency;
    return edge;
  }

  problem read(const YAML::Node& doc) const {
    problem p;
    p.source = file_;
    if (!doc.IsMap())
      fail(doc, "", fmt::format("expected a map at the top level, got {}", describe(doc)));
    const auto top = entries(doc, "", {"resources", "attributes", "ops", "edges"});
    auto find = [&top](std::string_view key) -> const entry* {
      for (const auto& e : top)
        if (e.key == key)
          return &e;
      return nullptr;
    };
    const entry* resources = find("resources");
    const entry* ops = find("ops");
    if (!resources)
      missing(doc, "", "resources");
    if (!ops)
      missing(doc, "", "ops");
    read_pools(p, resources->value, "resources");
    if (const entry* attrs = find("attributes"))
      read_attributes(p, attrs->value, "attributes");

    require_list(ops->value, "ops");
    std::map<std::string, std::size_t, std::less<>> first_line;
    for (std::size_t i = 0; i < ops->value.size(); ++i) {
      const YAML::Node item = ops->value[i];
      const std::string at = index_path("ops", i);
      op_spec op = read_op(p, item, at);
      auto [it, fresh] = first_line.emplace(op.name, op.line);
      if (!fresh)
        fail(item, child_path(at, "name"),
             fmt::format("duplicate op '{}' (first defined at line {})", op.name, it->second));
      p.ops.push_back(std::move(op));
    }

    if (const entry* edges = find("edges")) {
      require_list(edges->value, "edges");
      for (std::size_t i = 0; i < edges->value.size(); ++i)
        p.edges.push_back(read_edge(p, edges->value[i], index_path("edges", i)));
    }
    return p;
  }

private:
  std::string file_;
};

problem read_document(const YAML::Node& doc, const std::string& name) {
  problem p;
  try {
    p = reader(name).read(doc);
  } catch (const YAML::Exception& e) {
    // Not expected from the accessors used above; kept so no input crashes.
    throw config_error({name, line_of(e.mark)}, "", e.msg);
  }
  check_problem(p);
  return p;
}

} // namespace

problem read_problem_file(const std::string& path) {
  return read_document(load_yaml_file(path), path);
}

problem read_problem_text(const std::string& text, const std::string& name) {
  return read_document(load_yaml_text(text, name), name);
}

} // namespace kb::sched
