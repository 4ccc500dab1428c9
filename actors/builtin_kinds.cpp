#include "actors/builtin_kinds.hpp"

#include "actors/pe_cpu.hpp"
#include "actors/pe_gemm.hpp"
#include "actors/hbm_ctrl.hpp"
#include "actors/m_cpu.hpp"
#include "actors/noc.hpp"
#include "actors/pe_dma.hpp"
#include "actors/pe_fetch_store.hpp"
#include "actors/pe_math.hpp"
#include "actors/pe_mmu.hpp"
#include "actors/pe_tcm.hpp"
#include "actors/sram.hpp"
#include "actors/xbar.hpp"
#include "actors/pe_scheduler.hpp"

namespace kb {

void register_builtin_kinds(kind_registry& reg) {
  reg.add<pe_cpu>();
  reg.add<pe_gemm>();
  reg.add<hbm_ctrl>();
  reg.add<m_cpu>();
  reg.add<noc>();
  reg.add<pe_dma>();
  reg.add<pe_fetch_store>();
  reg.add<pe_math>();
  reg.add<pe_mmu>();
  reg.add<pe_tcm>();
  reg.add<sram>();
  reg.add<xbar>();
  reg.add<pe_scheduler>();
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
