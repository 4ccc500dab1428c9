#pragma once
// A documented node kind with no behaviour yet: receiving any message is an
// error naming the sender (pe_mmu, m_cpu).

#include "runtime/engine/node.hpp"

#include <string>

namespace kb::detail {

class inert_node : public node {
public:
  /// `why` completes "<name> received ... but it <why>".
  inert_node(caf::actor_config& cfg, node_init init, std::string why);

protected:
  void on_message(sim_event& ev) override;

private:
  std::string why_;
};

} // namespace kb::detail
