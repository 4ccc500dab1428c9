#pragma once
// PE_CPU: runs the PE's control program and submits commands to
// PE_SCHEDULER (never to an engine queue directly, ADR-0014 D1). A command's
// latency runs from its issue here to the receipt of its command-done notice.

#include "runtime/config/kind_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/engine/node.hpp"
#include "runtime/machine/machine_context.hpp"

#include <memory>
#include <vector>

namespace kb {

struct driver_program;

class pe_cpu final : public node {
public:
  struct config {
    std::shared_ptr<const driver_program> program; ///< may be null: idle
  };
  static kind_doc doc();
  static config read_config(const param_reader& p, const machine_context& ctx);

  pe_cpu(caf::actor_config& cfg, node_init init, config c);

protected:
  void on_start() override;
  void on_message(sim_event& ev) override;
  void on_finish() override;
  std::string pending_work() const override;

private:
  struct issued {
    uint64_t issue_ps = 0;
    uint64_t done_ps = 0;
    uint64_t tiles = 0;
    bool done = false;
  };
  config cfg_;
  std::vector<issued> commands_; ///< by command id - 1
};

} // namespace kb
