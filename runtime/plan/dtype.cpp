#include "kernels/dtype.hpp"

#include <array>
#include <utility>

namespace kb {

namespace {

constexpr std::array<std::pair<dtype, std::string_view>, 5> dtype_names{{
    {dtype::f32, "f32"},
    {dtype::f16, "f16"},
    {dtype::bf16, "bf16"},
    {dtype::i8, "i8"},
    {dtype::i32, "i32"},
}};

} // namespace

std::string_view to_string(dtype t) {
  for (const auto& [value, name] : dtype_names)
    if (value == t)
      return name;
  return "?";
}

std::optional<dtype> parse_dtype(std::string_view name) {
  for (const auto& [value, text] : dtype_names)
    if (text == name)
      return value;
  return std::nullopt;
}

} // namespace kb
