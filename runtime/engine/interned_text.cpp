#include "runtime/engine/interned_text.hpp"

#include <array>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_set>

namespace kb {

namespace {

struct text_hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct part {
  std::mutex mutex;
  // Node-based: an element never moves, so its view stays valid.
  std::unordered_set<std::string, text_hash, std::equal_to<>> texts;
};

constexpr size_t parts = 32;

} // namespace

std::string_view intern_text(std::string_view text) {
  if (text.empty())
    return {};
  static auto& table = *new std::array<part, parts>;
  const size_t h = text_hash{}(text);
  part& p = table[h % parts];
  std::lock_guard lock(p.mutex);
  auto it = p.texts.find(text);
  if (it == p.texts.end())
    it = p.texts.emplace(text).first;
  return *it;
}

} // namespace kb
