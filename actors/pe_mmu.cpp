#include "actors/pe_mmu.hpp"

namespace kb {

kind_doc pe_mmu::doc() {
  return {"pe_mmu",
          "address translation as identity with no delay; PE_DMA does not "
          "route through it in this model, so it receives no messages",
          {}};
}

pe_mmu::config pe_mmu::read_config(const param_reader&, const machine_context&) {
  return {};
}

pe_mmu::pe_mmu(caf::actor_config& cfg, node_init init, config)
  : inert_node(cfg, std::move(init),
               "is an identity translation that PE_DMA does not route "
               "through in this model") {}

} // namespace kb
