#pragma once
// M_CPU: the cube's management CPU. It will receive kernel launches and fan
// them out to the PE_CPUs over the NOC; that behaviour arrives with the
// kernel runner. Until then a message to it is an error naming the sender.

#include "actors/detail/inert_node.hpp"
#include "runtime/config/kind_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/machine/machine_context.hpp"

namespace kb {

class m_cpu final : public detail::inert_node {
public:
  struct config {};
  static kind_doc doc();
  static config read_config(const param_reader& p, const machine_context& ctx);

  m_cpu(caf::actor_config& cfg, node_init init, config c);
};

} // namespace kb
