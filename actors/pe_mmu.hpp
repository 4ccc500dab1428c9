#pragma once
// PE_MMU: the PE's address translation, on the DMA path when the topology
// links it into the fabric (ADR-0015). A translator: every request of its
// PE_DMA comes here, `translate` gives the physical address (the identity
// in pe_mmu_passthrough), and the request goes on toward the memory that
// owns that address by the MMU's own routes, `translate_cycles` later in
// head and tail. Replies go straight back to the DMA and never pass here.
// With no links into the fabric (the default machine) the DMA sends
// directly and the MMU takes no time and receives nothing.
//
// A translating MMU derives from this class and overrides `translate`.

#include "actors/detail/forwarder.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"

namespace kb {

class pe_mmu : public detail::forwarder_node {
public:
  struct config {
    Cycles translate{0}; ///< added to head and tail of every request
    sim_clock clock{};
    std::shared_ptr<const fabric_map> fabric;
  };
  static constexpr fabric_kind fabric{fabric_role::translator};
  static const impl_decl<config>& decl();
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): head and tail leave the
  /// translation time after they arrive.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  pe_mmu(caf::actor_config& cfg, node_init init, config c);

protected:
  /// The physical address of `address`; throws (naming it) for one that has
  /// no translation. The pass-through returns it unchanged.
  virtual uint64_t translate(uint64_t address);

  void on_message(sim_event& ev) override;
  /// Reports `requests` when on the path (replies never pass an MMU); an
  /// MMU off the path reports nothing, as before it took part.
  void on_finish() override;
};

} // namespace kb
