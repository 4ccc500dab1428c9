#include "runtime/predict/service_model.hpp"

#include "runtime/address.hpp"
#include "runtime/engine/link.hpp"
#include "runtime/machine/machine.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

service_model::service_model(const topology_spec& topo, const kind_registry& kinds,
                             const std::string& pe, std::shared_ptr<const fabric_map> fabric)
  : topo_(&topo), kinds_(&kinds), fabric_(std::move(fabric)), clock_(topo.clock()) {
  const machine_context ctx = context_of(topo);
  wire_ = ctx.wire_latency;
  queue_depth_ = topo.pe_queue_depth;
  auto declared = [&](const std::string& id) {
    const auto* n = topo.find_node(id);
    if (!n)
      throw std::invalid_argument(
        fmt::format("{}: no node '{}' for the II prediction", topo.file, id));
    auto fn = kinds.service_time(*n, ctx);
    if (!fn) // a limit of the prediction, not bad input: the II is "not modelled"
      throw std::domain_error(fmt::format(
        "{}: kind '{}' of node '{}' declares no service time for the II prediction", topo.file,
        n->kind, id));
    return std::move(*fn);
  };
  gemm_ = declared(pe + ".pe_gemm");
  math_ = declared(pe + ".pe_math");
  dma_setup_ = declared(pe + ".pe_dma");
  tcm_ = declared(pe + ".pe_tcm");
  auto hop_of = [&](const std::string& src, const std::string& dst) {
    const auto* l = topo.find_link(src, dst);
    if (!l)
      throw std::invalid_argument(
        fmt::format("{}: no link {} -> {} for the II prediction", topo.file, src, dst));
    return hop{l->latency, l->bandwidth};
  };
  fs_tcm_ = hop_of(pe + ".pe_fetch_store", pe + ".pe_tcm");
  tcm_fs_ = hop_of(pe + ".pe_tcm", pe + ".pe_fetch_store");
  if (!fabric_)
    fabric_ = build_fabric(topo, kinds);
  // Fabric node ids are positions in topo.nodes (sorted by id).
  const auto* dma = topo.find_node(pe + ".pe_dma");
  dma_id_ = static_cast<node_id>(dma - topo.nodes.data());
}

crossing service_model::cross(const hop& h, crossing in, uint64_t bytes) const {
  // The same link rule the engine applies, on an idle link.
  out_link l(link_spec_rt{no_node, no_node, h.latency, h.bw, 0});
  return l.cross(in.head, in.tail, bytes);
}

const service_time_fn& service_model::service_of(node_id n) const {
  auto it = services_.find(n);
  if (it != services_.end())
    return it->second;
  const node_spec& spec = topo_->nodes.at(n);
  auto fn = kinds_->service_time(spec, context_of(*topo_));
  if (!fn)
    throw std::domain_error(fmt::format(
      "{}: kind '{}' of node '{}' on the DMA's route declares no service time for the II "
      "prediction",
      topo_->file, spec.kind, spec.id));
  return services_.emplace(n, std::move(*fn)).first->second;
}

service_model::hop service_model::link(node_id a, node_id b) const {
  auto it = links_.find({a, b});
  if (it != links_.end())
    return it->second;
  const auto* l = topo_->find_link(topo_->nodes.at(a).id, topo_->nodes.at(b).id);
  if (!l) // routes are built from these links
    throw std::logic_error("a route over a missing link");
  return links_.emplace(std::make_pair(a, b), hop{l->latency, l->bandwidth}).first->second;
}

crossing service_model::walk(node_id from, node_id to, std::optional<node_id> first,
                             crossing c, uint64_t bytes, bool write) const {
  node_id at = from;
  std::optional<node_id> next = first ? first : fabric_->next_hop(at, to);
  for (size_t hops = 0;; ++hops) {
    if (!next || hops > fabric_->size())
      throw std::domain_error(no_route_message(*fabric_, at, to));
    c = cross(link(at, *next), c, bytes);
    at = *next;
    if (at == to)
      return c;
    c = service_of(at)({nullptr, bytes, write, c});
    next = fabric_->next_hop(at, to);
  }
}

SimTime service_model::dma(const stage& s, bool write) const {
  const uint64_t bytes = s.params.bytes;
  const std::optional<node_id> memory = fabric_->memory_of(s.params.address);
  if (!memory)
    throw std::domain_error(fmt::format("no memory of the machine owns the address of {}",
                                        to_string(s)));
  const crossing start{SimTime{}, SimTime{}};
  const crossing req = dma_setup_({&s, bytes, write, start});
  const trip key{*memory, bytes, write, req.head, req.tail};
  if (const auto it = trips_.find(key); it != trips_.end())
    return it->second;
  // A read's request carries no payload, a write's carries the bytes; the
  // request goes through the DMA's MMU if that is on the path (the
  // prediction takes its translation as the identity), the reply straight
  // back. The data comes back with a read, an empty ack with a write.
  const uint64_t out_bytes = write ? bytes : 0;
  const crossing at_memory = walk(dma_id_, *memory, fabric_->via(dma_id_), req, out_bytes, write);
  const crossing reply = service_of(*memory)({nullptr, bytes, write, at_memory});
  const crossing back = walk(*memory, dma_id_, std::nullopt, reply, write ? 0 : bytes, write);
  // The ack's arrival, or the data's tail.
  return trips_.emplace(key, write ? back.head : back.tail).first->second;
}

SimTime service_model::service(const stage& s) const {
  const crossing start{SimTime{}, SimTime{}};
  switch (s.type) {
    case stage_type::dma_read:
    case stage_type::dma_write:
      return dma(s, s.type == stage_type::dma_write);
    case stage_type::fetch:
    case stage_type::store: {
      const crossing at_tcm = cross(fs_tcm_, start, 0);
      return cross(tcm_fs_, tcm_({&s, s.params.bytes, false, at_tcm}), 0).head;
    }
    case stage_type::gemm: return gemm_({&s, 0, false, start}).head;
    case stage_type::math: return math_({&s, 0, false, start}).head;
  }
  return SimTime{};
}

} // namespace kb
