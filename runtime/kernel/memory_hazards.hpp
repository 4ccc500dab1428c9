#pragma once
// A kernel's own global-memory accesses in flight and the order they
// impose (seed ADR-0014 D2's dependency state, docs/adr/0025; seed
// ADR-0020 D3 store-to-load forwarding): its loads not yet taken, its
// stores with data, the compute results it wrote (pending in Phase 1) and
// what its composite commands read. Every range is a tensor_view of bytes
// (bytes()) and every overlap is data/tensor.hpp's, exact.
//
// No simulation here: `done(id)` says whether command `id` has finished,
// and kernel_context issues, waits and fails (tests/kernel/
// memory_hazards_test.cpp drives it by hand).

#include "kernels/tensor_view.hpp"
#include "runtime/data/tensor.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace kb {

class memory_hazards {
public:
  explicit memory_hazards(std::function<bool(uint64_t)> done);

  /// Rows of `row_bytes` bytes, `stride` apart from `address`, as a view.
  static tensor_view bytes(uint64_t address, uint64_t stride, uint64_t rows, uint64_t row_bytes);

  /// What the kernel wrote.
  struct write {
    uint64_t command = 0;
    tensor_view range;         ///< bytes()
    std::vector<uint8_t> data; ///< empty: a compute result (pending in Phase 1)
    std::string what;
    /// An atomic (its bytes are what the memory computes): later loads wait
    /// for it but take nothing from it, nor from the writes before it.
    bool atomic = false;
  };
  /// A load issued and not yet taken (tl.load_async).
  struct load {
    std::string what;
    tensor_view range;
    std::vector<write> earlier; ///< this kernel's stores in flight at its issue
  };

  // -- loads ---------------------------------------------------------------------
  /// Forgets the stores that are done, then: those still in flight that
  /// write bytes of `range` (a load of it starts after them).
  std::vector<uint64_t> stores_into(const tensor_view& range);
  /// This kernel's stores in flight, as stores_into last left them.
  const std::vector<write>& stores() const { return in_flight_; }
  /// Load `id` of `range` was issued after stores_into(range).
  void loading(uint64_t id, std::string what, tensor_view range);
  /// Load `id` in flight (null: none such).
  const load* load_of(uint64_t id) const;
  /// Load `id`'s data was taken.
  void loaded(uint64_t id) { loads_.erase(id); }
  /// Lays the bytes of `stores` that `range` covers over `data`, the
  /// bytes a load of `range` read (packed rows): only those after the last
  /// atomic on these bytes, which the memory computed and the load waited for.
  static void forward(const tensor_view& range, const std::vector<write>& stores,
                      std::vector<uint8_t>& data);

  // -- writes --------------------------------------------------------------------
  /// The commands a new write of `range` must follow: this kernel's loads
  /// and composite commands in flight that read those bytes (write after
  /// read), and its stores and computes in flight that write them (write
  /// after write). Without repeats, in that order.
  std::vector<uint64_t> write_hazards(const tensor_view& range) const;
  /// A write was issued (a store with data, or a compute result).
  void wrote(write w);

  // -- composite commands --------------------------------------------------------
  /// This kernel's stores with data not yet done (a composite command
  /// keeps its order with compute results' writes in PE_SCHEDULER).
  std::vector<uint64_t> stores_in_flight() const;
  /// Its loads not yet done that read bytes of `range`.
  std::vector<uint64_t> loads_reading(const tensor_view& range) const;
  /// Composite command `id` was issued, reading `reads`.
  void composite(uint64_t id, std::vector<byte_range> reads);

private:
  void drop_finished_stores();

  std::function<bool(uint64_t)> done_;
  /// Its writes not yet done: stores with data, and compute results' writes
  /// (no data; a load of their bytes waits for them and gets no data).
  std::vector<write> in_flight_;
  std::map<uint64_t, load> loads_;
  /// Composite commands maybe in flight, with the byte ranges they read.
  struct composite_reads {
    uint64_t command = 0;
    std::vector<byte_range> reads;
  };
  std::vector<composite_reads> composites_;
};

} // namespace kb
