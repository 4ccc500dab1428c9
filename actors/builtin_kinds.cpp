#include "actors/builtin_kinds.hpp"

#include "actors/pe_gemm.hpp"

namespace kb {

void register_builtin_kinds(kind_registry& reg) {
  reg.add<pe_gemm>();
}

const kind_registry& builtin_kinds() {
  static const kind_registry reg = [] {
    kind_registry r;
    register_builtin_kinds(r);
    return r;
  }();
  return reg;
}

} // namespace kb
