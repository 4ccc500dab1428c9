#pragma once
// The registry of node kinds: each kind registers with one line,
// `reg.add<pe_gemm>()`, which records its documented config keys (for
// validation and `kernbench list-components`) and how to build it.
//
// A kind T provides:
//   static kind_doc doc();
//   struct config;                      // its parameters, read once
//   static config read_config(const param_reader&, const machine_context&);
//   T(caf::actor_config&, node_init, config);
// and, if its service enters the II prediction (ADR-0007):
//   static service_time_fn service_time(const config&, const machine_context&);

#include "runtime/config/kind_doc.hpp"
#include "runtime/config/param_reader.hpp"
#include "runtime/config/topology_spec.hpp"
#include "runtime/engine/simulation.hpp"
#include "runtime/machine/machine_context.hpp"
#include "runtime/machine/service_time.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace kb {

class kind_registry {
public:
  using factory_maker =
    std::function<node_factory(const param_reader&, const machine_context&)>;

  template <class T>
  void add() {
    kind_doc d = T::doc();
    const std::string kind = d.kind;
    catalog_.add(std::move(d));
    makers_[kind] = [](const param_reader& p, const machine_context& ctx) {
      return make_node_factory<T>(T::read_config(p, ctx));
    };
    if constexpr (requires(const typename T::config& c, const machine_context& ctx) {
                    { T::service_time(c, ctx) } -> std::convertible_to<service_time_fn>;
                  }) {
      services_[kind] = [](const param_reader& p, const machine_context& ctx) {
        return T::service_time(T::read_config(p, ctx), ctx);
      };
    }
  }

  const kind_catalog& catalog() const { return catalog_; }

  /// A factory for a node of the topology; throws config_error naming the
  /// node if its kind has no implementation.
  node_factory make(const node_spec& spec, const machine_context& ctx) const;
  /// The service-time function the node's kind declares, built from the
  /// node's own parameters; nullopt when the kind declares none.
  std::optional<service_time_fn> service_time(const node_spec& spec,
                                              const machine_context& ctx) const;

private:
  kind_catalog catalog_;
  std::map<std::string, factory_maker, std::less<>> makers_;
  using service_maker =
    std::function<service_time_fn(const param_reader&, const machine_context&)>;
  std::map<std::string, service_maker, std::less<>> services_;
};

} // namespace kb
