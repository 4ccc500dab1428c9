#include "runtime/engine/command_stat.hpp"

namespace kb {

std::string_view to_string(command_call c) {
  switch (c) {
    case command_call::gemm: return "gemm";
    case command_call::math: return "math";
    case command_call::load: return "load";
    case command_call::store: return "store";
    case command_call::dot: return "dot";
    case command_call::compute: return "compute";
  }
  return "?";
}

std::string_view to_string(held_why w) {
  switch (w) {
    case held_why::none: return "none";
    case held_why::depends: return "depends";
    case held_why::engine: return "engine";
  }
  return "?";
}

} // namespace kb
