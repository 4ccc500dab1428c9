#pragma once
// PE_MMU: address translation. Modelled as the identity with no delay, and
// PE_DMA does not route through it in this model, so it receives nothing;
// a message to it is an error naming the sender.

#include "actors/detail/inert_node.hpp"
#include "runtime/config/kind_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"

namespace kb {

class pe_mmu final : public detail::inert_node {
public:
  struct config {};
  static kind_doc doc();
  static config read_config(const param_reader& p, const machine_context& ctx);

  pe_mmu(caf::actor_config& cfg, node_init init, config c);
};

} // namespace kb
