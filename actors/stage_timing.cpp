#include "actors/stage_timing.hpp"

#include "actors/detail/names.hpp"
#include "actors/hbm_ctrl.hpp"
#include "actors/pe_dma.hpp"
#include "actors/pe_tcm.hpp"
#include "actors/xbar.hpp"
#include "runtime/address.hpp"
#include "runtime/engine/link.hpp"
#include "runtime/machine/machine.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace kb {

namespace {

const node_spec& node_of(const topology_spec& topo, const std::string& id) {
  if (const auto* n = topo.find_node(id))
    return *n;
  throw std::invalid_argument(fmt::format("{}: no node '{}' for the II prediction", topo.file, id));
}

} // namespace

stage_timing::stage_timing(const topology_spec& topo, const std::string& pe)
  : clock_(topo.clock()), cube_(pe.substr(0, pe.rfind('.'))) {
  machine_context ctx = context_of(topo);
  wire_ = ctx.wire_latency;
  gemm_ = pe_gemm::read_config(node_of(topo, pe + ".pe_gemm").params, ctx);
  math_ = pe_math::read_config(node_of(topo, pe + ".pe_math").params, ctx);
  const auto dma = pe_dma::read_config(node_of(topo, pe + ".pe_dma").params, ctx);
  dma_setup_ = clock_.to_time(dma.setup);
  tcm_bw_ = pe_tcm::read_config(node_of(topo, pe + ".pe_tcm").params, ctx).bandwidth;
  xbar_latency_ = xbar::read_config(node_of(topo, cube_ + ".xbar").params, ctx).latency;
  const auto hbm = hbm_ctrl::read_config(node_of(topo, cube_ + ".hbm").params, ctx);
  hbm_bw_ = hbm.bandwidth;
  hbm_latency_ = hbm.latency;
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
  fs_to_tcm_ = hop_of(pe + ".pe_fetch_store", pe + ".pe_tcm").latency;
  tcm_to_fs_ = hop_of(pe + ".pe_tcm", pe + ".pe_fetch_store").latency;
}

SimTime stage_timing::dma(uint64_t bytes, bool write) const {
  // The same link rule the engine applies (out_link::cross), on idle links.
  auto cross = [](const hop& h, crossing in, uint64_t payload) {
    out_link l(link_spec_rt{no_node, no_node, h.latency, h.bw, 0});
    return l.cross(in.head, in.tail, payload);
  };
  auto through_xbar = [&](crossing c) {
    return crossing{c.head + xbar_latency_, c.tail + xbar_latency_};
  };
  const SimTime t0 = dma_setup_;
  if (!write) {
    const crossing at_hbm = cross(xbar_hbm_, through_xbar(cross(dma_xbar_, {t0, t0}, 0)), 0);
    const SimTime s = at_hbm.head;
    const crossing data{s + hbm_latency_, s + xfer(bytes, hbm_bw_) + hbm_latency_};
    return cross(xbar_dma_, through_xbar(cross(hbm_xbar_, data, bytes)), bytes).tail;
  }
  const crossing at_hbm =
    cross(xbar_hbm_, through_xbar(cross(dma_xbar_, {t0, t0}, bytes)), bytes);
  const SimTime s = at_hbm.head;
  const SimTime free = std::max(s + xfer(bytes, hbm_bw_), at_hbm.tail);
  const SimTime ack = free + hbm_latency_;
  return cross(xbar_dma_, through_xbar(cross(hbm_xbar_, {ack, ack}, 0)), 0).head;
}

SimTime stage_timing::service(const stage& s) const {
  const auto& p = s.params;
  switch (s.type) {
    case stage_type::dma_read:
    case stage_type::dma_write: {
      const auto a = global_address::decode(p.address);
      if (a.space != mem_space::hbm || a.cube_prefix() != cube_)
        throw std::domain_error(fmt::format(
          "the II prediction models DMA to this cube's HBM only, not {}", to_string(s)));
      return dma(p.bytes, s.type == stage_type::dma_write);
    }
    case stage_type::fetch:
    case stage_type::store: return fs_to_tcm_ + xfer(p.bytes, tcm_bw_) + tcm_to_fs_;
    case stage_type::gemm: return clock_.to_time(pe_gemm::tile_cycles(gemm_, p.tm, p.tk, p.tn));
    case stage_type::math:
      return clock_.to_time(pe_math::stage_cycles(math_, p.op.value_or(math_op::add), p.elements));
  }
  return SimTime{};
}

} // namespace kb
