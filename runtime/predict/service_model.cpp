#include "runtime/predict/service_model.hpp"

#include "runtime/address.hpp"
#include "runtime/engine/link.hpp"
#include "runtime/machine/machine.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

service_model::service_model(const topology_spec& topo, const kind_registry& kinds,
                             const std::string& pe)
  : clock_(topo.clock()), cube_(pe.substr(0, pe.rfind('.'))) {
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
  xbar_ = declared(cube_ + ".xbar");
  hbm_ = declared(cube_ + ".hbm");
  auto hop_of = [&](const std::string& src, const std::string& dst) {
    const auto* l = topo.find_link(src, dst);
    if (!l)
      throw std::invalid_argument(
        fmt::format("{}: no link {} -> {} for the II prediction", topo.file, src, dst));
    return hop{l->latency, l->bandwidth};
  };
  dma_xbar_ = hop_of(pe + ".pe_dma", cube_ + ".xbar");
  xbar_hbm_ = hop_of(cube_ + ".xbar", cube_ + ".hbm");
  hbm_xbar_ = hop_of(cube_ + ".hbm", cube_ + ".xbar");
  xbar_dma_ = hop_of(cube_ + ".xbar", pe + ".pe_dma");
  fs_tcm_ = hop_of(pe + ".pe_fetch_store", pe + ".pe_tcm");
  tcm_fs_ = hop_of(pe + ".pe_tcm", pe + ".pe_fetch_store");
}

crossing service_model::cross(const hop& h, crossing in, uint64_t bytes) const {
  // The same link rule the engine applies, on an idle link.
  out_link l(link_spec_rt{no_node, no_node, h.latency, h.bw, 0});
  return l.cross(in.head, in.tail, bytes);
}

SimTime service_model::dma(const stage& s, bool write) const {
  const uint64_t bytes = s.params.bytes;
  const crossing start{SimTime{}, SimTime{}};
  const crossing req = dma_setup_({&s, bytes, write, start});
  // A read's request carries no payload, a write's carries the bytes.
  const uint64_t out_bytes = write ? bytes : 0;
  const crossing at_hbm =
    cross(xbar_hbm_, xbar_({nullptr, out_bytes, write, cross(dma_xbar_, req, out_bytes)}),
          out_bytes);
  const crossing reply = hbm_({nullptr, bytes, write, at_hbm});
  const uint64_t back_bytes = write ? 0 : bytes; // data back, or an empty ack
  const crossing back =
    cross(xbar_dma_, xbar_({nullptr, back_bytes, write, cross(hbm_xbar_, reply, back_bytes)}),
          back_bytes);
  return write ? back.head : back.tail; // the ack's arrival, or the data's tail
}

SimTime service_model::service(const stage& s) const {
  const crossing start{SimTime{}, SimTime{}};
  switch (s.type) {
    case stage_type::dma_read:
    case stage_type::dma_write: {
      const auto a = global_address::decode(s.params.address);
      if (a.space != mem_space::hbm || a.cube_prefix() != cube_)
        throw std::domain_error(fmt::format(
          "the II prediction models DMA to this cube's HBM only, not {}", to_string(s)));
      return dma(s, s.type == stage_type::dma_write);
    }
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
