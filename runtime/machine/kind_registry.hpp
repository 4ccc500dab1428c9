#pragma once
// The registry of node implementations, and the only one (ADR-0037): each
// implementation registers with one line, `reg.add<pe_gemm>("pe_gemm_v1")`,
// which records what the class declares about itself (its kind, description,
// parameters and ports: the catalog that validates topologies and that
// `kernbench list-components`, config/components.yaml and docs/config.md
// show) and which class builds a node whose `impl:` names it. Two impls of
// one kind may be different classes with different parameters (seed
// ADR-0021 D8).
//
// A class T provides:
//   struct config;                      // its parameters and what it needs
//   static const impl_decl<config>& decl();     // runtime/config/param_decl
//   static config read_config(const param_reader&, const machine_context&);
//   T(caf::actor_config&, node_init, config);
// and, if its service enters the II prediction (ADR-0007):
//   static service_time_fn service_time(const config&, const machine_context&);
// and, if it takes part in the memory fabric (runtime/machine/fabric_map):
//   static constexpr fabric_kind fabric{fabric_role::forwarder};
// and, if it sends to components of its own scope by name (impl_doc.hpp):
//   static std::span<const port_doc> ports();

#include "runtime/config/impl_doc.hpp"
#include "runtime/config/param_decl.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/machine/fabric_map.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>

namespace kb {

class kind_registry {
public:
  using factory_maker =
    std::function<node_factory(const param_reader&, const machine_context&)>;

  /// Registers class T as the implementation `impl` of its kind
  /// (T::decl().kind()). Throws std::invalid_argument for an impl
  /// registered twice or a declaration the catalog refuses (impl_doc.hpp).
  template <class T>
  void add(const std::string& impl) {
    std::vector<port_doc> ports;
    if constexpr (requires { T::ports(); })
      ports.assign(T::ports().begin(), T::ports().end());
    add_impl(T::decl().doc(impl, std::move(ports)),
             [](const param_reader& p, const machine_context& ctx) {
               return make_node_factory<T>(T::read_config(p, ctx));
             });
    if constexpr (requires(const typename T::config& c, const machine_context& ctx) {
                    { T::service_time(c, ctx) } -> std::convertible_to<service_time_fn>;
                  }) {
      services_[impl] = [](const param_reader& p, const machine_context& ctx) {
        return T::service_time(T::read_config(p, ctx), ctx);
      };
    }
    if constexpr (requires { T::fabric; })
      fabric_[T::decl().kind()] = T::fabric;
  }

  const impl_catalog& catalog() const { return catalog_; }

  /// A factory for a node of the topology, built by the class registered
  /// for its impl; throws config_error naming the node if there is none.
  node_factory make(const node_spec& spec, const machine_context& ctx) const;
  /// The service-time function the node's impl declares, built from the
  /// node's own parameters; nullopt when it declares none.
  std::optional<service_time_fn> service_time(const node_spec& spec,
                                              const machine_context& ctx) const;

  /// The kind's role on the memory fabric (none unless it declares one).
  fabric_kind fabric_of(std::string_view kind) const;

  /// The output ports the implementation declares (none unless it
  /// declares some, or for an impl not registered).
  std::span<const port_doc> ports_of(std::string_view impl) const;

private:
  void add_impl(impl_doc doc, factory_maker maker);

  struct impl_entry {
    std::string kind;
    factory_maker maker;
  };
  impl_catalog catalog_;
  std::map<std::string, impl_entry, std::less<>> impls_;
  using service_maker =
    std::function<service_time_fn(const param_reader&, const machine_context&)>;
  std::map<std::string, service_maker, std::less<>> services_; ///< by impl
  std::map<std::string, fabric_kind, std::less<>> fabric_;     ///< by kind
};

} // namespace kb
