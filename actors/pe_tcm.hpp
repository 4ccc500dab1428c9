#pragma once
// PE_TCM: the PE's scratchpad as the fetch/store lanes see it (DESIGN §4).
// Serves tcm_request messages one at a time, FIFO in arrival-key order, no
// credits: s = max(arrival, free); free = s + xfer(bytes, bandwidth); the
// tcm_reply (bytes and lane echoed) leaves at `free` back to the sender.
// DMA traffic does not touch this model (the TCM is dual-ported).

#include "runtime/config/kind_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"

namespace kb {

class pe_tcm final : public node {
public:
  struct config {
    Bandwidth bandwidth = Bandwidth::gbps(512);
  };
  static kind_doc doc();
  static config read_config(const param_reader& p, const machine_context& ctx);
  /// Declared for the II prediction (ADR-0007): an idle TCM replies xfer(bytes) after the request arrives.
  static service_time_fn service_time(const config& c, const machine_context& ctx);

  pe_tcm(caf::actor_config& cfg, node_init init, config c);

protected:
  void on_message(sim_event& ev) override;
  void on_finish() override;

private:
  config cfg_;
  SimTime free_;
  uint64_t busy_ps_ = 0;
  uint64_t bytes_ = 0;
  uint64_t requests_ = 0;
};

} // namespace kb
