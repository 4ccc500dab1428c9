#include "kernels/math_op.hpp"

#include <array>
#include <utility>

namespace kb {

namespace {

constexpr std::array<std::pair<math_op, std::string_view>, 8> op_names{{
    {math_op::add, "add"},
    {math_op::mul, "mul"},
    {math_op::relu, "relu"},
    {math_op::bias, "bias"},
    {math_op::scale, "scale"},
    {math_op::exp, "exp"},
    {math_op::dequant, "dequant"},
    {math_op::rsqrt, "rsqrt"},
}};

constexpr std::array<std::pair<epilogue_scope, std::string_view>, 2>
    scope_names{{
        {epilogue_scope::k_tile, "k_tile"},
        {epilogue_scope::output_tile, "output_tile"},
    }};

template <class Enum, class Table>
std::string_view name_of(const Table& table, Enum value) {
  for (const auto& [v, name] : table)
    if (v == value)
      return name;
  return "?";
}

template <class Enum, class Table>
std::optional<Enum> value_of(const Table& table, std::string_view name) {
  for (const auto& [v, text] : table)
    if (text == name)
      return v;
  return std::nullopt;
}

} // namespace

std::string_view to_string(math_op op) {
  return name_of(op_names, op);
}

std::optional<math_op> parse_math_op(std::string_view name) {
  return value_of<math_op>(op_names, name);
}

bool takes_operand(math_op op) {
  return op == math_op::bias || op == math_op::add || op == math_op::mul || op == math_op::dequant;
}

std::string_view to_string(epilogue_scope scope) {
  return name_of(scope_names, scope);
}

std::optional<epilogue_scope> parse_epilogue_scope(std::string_view name) {
  return value_of<epilogue_scope>(scope_names, name);
}

} // namespace kb
