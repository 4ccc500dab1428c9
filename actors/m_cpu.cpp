#include "actors/m_cpu.hpp"

namespace kb {

kind_doc m_cpu::doc() {
  return {"m_cpu",
          "receives kernel launches and fans them out to PE_CPUs (arrives "
          "with the kernel runner; no behaviour yet)",
          {}};
}

m_cpu::config m_cpu::read_config(const param_reader&, const machine_context&) {
  return {};
}

m_cpu::m_cpu(caf::actor_config& cfg, node_init init, config)
  : inert_node(cfg, std::move(init),
               "has no behaviour yet (kernel launches arrive with the kernel "
               "runner)") {}

} // namespace kb
