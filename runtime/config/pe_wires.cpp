#include "runtime/config/pe_wires.hpp"

#include <array>

namespace kb {

namespace {

constexpr std::array<pe_wire, 21> k_default_wires{{
    // command path and command-done notice
    {"pe_cpu", "pe_scheduler"},
    {"pe_scheduler", "pe_cpu"},
    // the feeder injects a tile's first stage
    {"pe_scheduler", "pe_dma"},
    {"pe_scheduler", "pe_fetch_store"},
    {"pe_scheduler", "pe_gemm"},
    {"pe_scheduler", "pe_math"},
    // self-routing tokens DMA_READ -> FETCH -> GEMM -> MATH -> STORE ->
    // DMA_WRITE
    {"pe_dma", "pe_fetch_store"},
    {"pe_fetch_store", "pe_gemm"},
    {"pe_fetch_store", "pe_math"},
    {"pe_gemm", "pe_fetch_store"},
    {"pe_gemm", "pe_math"},
    {"pe_math", "pe_fetch_store"},
    {"pe_fetch_store", "pe_dma"},
    // fetch/store requests to the TCM and its replies
    {"pe_fetch_store", "pe_tcm"},
    {"pe_tcm", "pe_fetch_store"},
    // tile-done notices from the unit of a tile's last stage
    {"pe_dma", "pe_scheduler"},
    {"pe_fetch_store", "pe_scheduler"},
    {"pe_gemm", "pe_scheduler"},
    {"pe_math", "pe_scheduler"},
    // address translation
    {"pe_dma", "pe_mmu", true},
    {"pe_mmu", "pe_dma", true},
}};

} // namespace

std::span<const pe_wire> default_pe_wires() {
  return k_default_wires;
}

} // namespace kb
