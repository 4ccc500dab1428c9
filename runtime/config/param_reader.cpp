#include "runtime/config/param_reader.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/config/detail/load_work.hpp"
#include "runtime/config/detail/value_convert.hpp"
#include "runtime/config/yaml_source.hpp"

namespace kb {

using detail::convert_value;
using detail::describe;
using detail::ends_with;
using detail::fail_type;

// -- construction -------------------------------------------------------------

param_reader::param_reader(YAML::Node map, shared_text file, shared_text path,
                           std::size_t line)
    : node_(std::move(map)), file_(std::move(file)), path_(std::move(path)),
      line_(line) {
  if (!node_.IsMap() && !node_.IsNull())
    throw config_error({file_, line_}, path_,
                       fmt::format("expected a map, got {}", describe(node_)));
  index_ = index_of(node_);
}

std::shared_ptr<const param_reader::key_index> param_reader::index_of(const YAML::Node& map) {
  auto index = std::make_shared<key_index>();
  if (map.IsMap())
    for (const auto kv : map)
      index->push_back({kv.first.IsScalar() ? kv.first.Scalar() : std::string{},
                        kv.first.IsScalar(), found{kv.first, kv.second}});
  return index;
}

param_reader param_reader::root(YAML::Node doc, std::string file) {
  const std::size_t line = doc.IsNull() ? 0 : line_of(doc.Mark());
  if (!doc.IsMap())
    throw config_error(
        {std::move(file), line}, "",
        fmt::format("expected a map at the top level, got {}", describe(doc)));
  return param_reader(std::move(doc), std::move(file), "", line);
}

param_reader& param_reader::operator=(const param_reader& other) {
  if (this != &other) {
    node_.reset(other.node_);
    index_ = other.index_;
    file_ = other.file_;
    path_ = other.path_;
    line_ = other.line_;
  }
  return *this;
}

param_reader& param_reader::operator=(param_reader&& other) noexcept {
  if (this != &other) {
    node_.reset(other.node_);
    index_ = std::move(other.index_);
    file_ = std::move(other.file_);
    path_ = std::move(other.path_);
    line_ = other.line_;
  }
  return *this;
}

// -- typed reads --------------------------------------------------------------

namespace {

/// Reading SimTime from a key without a unit suffix is a programming error,
/// reported whether or not the key is present.
template <class T> void check_key_unit(std::string_view key) {
  if constexpr (std::same_as<T, SimTime>)
    if (!ends_with(key, "_ps") && !ends_with(key, "_ns"))
      throw std::invalid_argument(fmt::format(
          "param_reader: time key '{}' must end in _ps or _ns", key));
}

} // namespace

template <param_value T> T param_reader::required(std::string_view key) const {
  check_key_unit<T>(key);
  auto kv = find(key);
  if (!kv)
    throw error({}, fmt::format("missing required key '{}'", key));
  return convert_value<T>(*this, key, kv->value);
}

template <param_value T>
T param_reader::get_or(std::string_view key, T fallback) const {
  check_key_unit<T>(key);
  auto kv = find(key);
  return kv ? convert_value<T>(*this, key, kv->value) : std::move(fallback);
}

#define KB_PARAM_READER_INSTANTIATE(T)                                         \
  template T param_reader::required<T>(std::string_view) const;                \
  template T param_reader::get_or<T>(std::string_view, T) const;
KB_PARAM_READER_INSTANTIATE(uint64_t)
KB_PARAM_READER_INSTANTIATE(uint32_t)
KB_PARAM_READER_INSTANTIATE(int64_t)
KB_PARAM_READER_INSTANTIATE(double)
KB_PARAM_READER_INSTANTIATE(bool)
KB_PARAM_READER_INSTANTIATE(std::string)
KB_PARAM_READER_INSTANTIATE(SimTime)
KB_PARAM_READER_INSTANTIATE(Cycles)
KB_PARAM_READER_INSTANTIATE(Bandwidth)
#undef KB_PARAM_READER_INSTANTIATE

SimTime param_reader::latency(std::string_view key) const {
  auto kv = find(key);
  if (!kv)
    throw error({}, fmt::format("missing required key '{}'", key));
  return detail::convert_ps(*this, key, kv->value);
}

Bandwidth param_reader::bandwidth(std::string_view key) const {
  return required<Bandwidth>(key);
}

bool param_reader::has(std::string_view key) const {
  return find(key).has_value();
}

// -- structure ----------------------------------------------------------------

param_reader param_reader::map(std::string_view key) const {
  auto kv = find(key);
  if (!kv)
    throw error({}, fmt::format("missing required key '{}'", key));
  if (!kv->value.IsMap() && !kv->value.IsNull())
    fail_type(*this, key, kv->value, "a map");
  // `key:` with nothing after it reads as an empty map.
  return param_reader(kv->value, file_, key_path(key), line_of(kv->key.Mark()));
}

param_reader param_reader::map_or_empty(std::string_view key) const {
  if (!has(key))
    return param_reader(YAML::Node(YAML::NodeType::Map), file_, key_path(key),
                        line_);
  return map(key);
}

std::vector<param_reader>
param_reader::list_of_maps(std::string_view key) const {
  std::vector<param_reader> out;
  auto kv = find(key);
  if (!kv || kv->value.IsNull()) // absent or `key:` alone: no items
    return out;
  if (!kv->value.IsSequence())
    fail_type(*this, key, kv->value, "a list");
  std::size_t i = 0;
  for (const auto& item : kv->value) {
    const std::string item_path = fmt::format("{}[{}]", key_path(key), i++);
    if (!item.IsMap())
      throw config_error({file_, line_of(item.Mark())}, item_path,
                         fmt::format("expected a map, got {}", describe(item)));
    out.emplace_back(item, file_, item_path, line_of(item.Mark()));
  }
  return out;
}

std::vector<param_reader::entry> param_reader::map_entries() const {
  std::vector<entry> out;
  for (const auto kv : node_) {
    const std::string key = kv.first.Scalar();
    if (!kv.second.IsMap())
      fail_type(*this, key, kv.second, "a map");
    const std::size_t line = line_of(kv.first.Mark());
    out.push_back({key,
                   {file_, line},
                   param_reader(kv.second, file_, key_path(key), line)});
  }
  return out;
}

std::vector<std::string> param_reader::keys() const {
  std::vector<std::string> out;
  for (const auto kv : node_)
    out.push_back(kv.first.Scalar());
  return out;
}

template <class Allowed>
void param_reader::check_keys(const Allowed& allowed) const {
  std::vector<std::string> seen;
  for (const auto kv : node_) {
    if (!kv.first.IsScalar())
      throw config_error({file_, line_of(kv.first.Mark())}, path_,
                         "map keys must be plain names");
    const std::string key = kv.first.Scalar();
    const bool known = std::any_of(allowed.begin(), allowed.end(),
                                   [&](const auto& a) { return a == key; });
    if (!known) {
      std::vector<std::string> sorted(allowed.begin(), allowed.end());
      std::sort(sorted.begin(), sorted.end());
      throw config_error({file_, line_of(kv.first.Mark())}, key_path(key),
                         fmt::format("unknown key '{}' (allowed: {})", key,
                                     fmt::join(sorted, ", ")));
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw config_error({file_, line_of(kv.first.Mark())}, key_path(key),
                         fmt::format("duplicate key '{}'", key));
    seen.push_back(key);
  }
}

void param_reader::unknown_keys(
    std::initializer_list<std::string_view> allowed) const {
  check_keys(allowed);
}

void param_reader::unknown_keys(const std::vector<std::string>& allowed) const {
  check_keys(allowed);
}

// -- error reporting ----------------------------------------------------------

std::string param_reader::key_path(std::string_view key) const {
  if (path_.empty())
    return std::string(key);
  if (key.empty())
    return path_;
  return fmt::format("{}.{}", path_.str(), key);
}

source_loc param_reader::where(std::string_view key) const {
  if (!key.empty())
    if (auto kv = find(key))
      if (const std::size_t line = line_of(kv->key.Mark()); line != 0)
        return {file_, line};
  return {file_, line_};
}

config_error param_reader::error(std::string_view key,
                                 std::string message) const {
  return config_error(where(key), key_path(key), std::move(message));
}

std::optional<param_reader::found>
param_reader::find(std::string_view key) const {
  if (!node_.IsMap() || !index_)
    return std::nullopt;
  uint64_t visited = 0;
  std::optional<found> out;
  for (const indexed& e : *index_) {
    ++visited;
    if (e.scalar && e.key == key) {
      out = e.at;
      break;
    }
  }
  detail::this_thread_load_work().yaml_entries += visited;
  return out;
}

} // namespace kb
