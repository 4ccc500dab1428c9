#include "actors/builtin_kinds.hpp"

#include "actors/pe_cpu.hpp"
#include "actors/pe_gemm.hpp"
#include "actors/hbm_ctrl.hpp"
#include "actors/hbm_ctrl_channels.hpp"
#include "actors/host.hpp"
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
  reg.add<pe_cpu>("pe_cpu_v1");
  reg.add<pe_gemm>("pe_gemm_v1");
  reg.add<hbm_ctrl>("hbm_ctrl_v1");
  reg.add<hbm_ctrl_channels>("hbm_ctrl_channels_v1");
  reg.add<host>("host_v1");
  reg.add<m_cpu>("m_cpu_v1");
  reg.add<noc>("noc_v1");
  reg.add<pe_dma>("pe_dma_v1");
  reg.add<pe_fetch_store>("pe_fetch_store_v1");
  reg.add<pe_math>("pe_math_v1");
  reg.add<pe_mmu>("pe_mmu_passthrough");
  reg.add<pe_tcm>("pe_tcm_v1");
  reg.add<sram>("sram_v1");
  reg.add<xbar>("xbar_v1");
  reg.add<pe_scheduler>("pe_scheduler_v1");
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
