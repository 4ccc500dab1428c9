#pragma once
// Runs test kernels (plain functions against tl::context) on the default
// machine (config/topology.yaml: 1 SIP, 1 cube, 4 PEs,
// DESIGN §4 timing) with a deployed memory image and the op log on, then
// replays the op log (Phase 2) on that image.

#include "kernels/tl.hpp"
#include "runtime/address.hpp"
#include "runtime/data/memory_image.hpp"
#include "runtime/data/op_record.hpp"
#include "runtime/run/machine_run.hpp"

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kb::test {

/// The kernel launch on the default machine (DESIGN §4): M_CPU -> NOC 1 ns,
/// the NOC's 4 ns, NOC -> PE_CPU 1 ns: the kernel starts at 6 ns.
inline constexpr uint64_t launch_ps = 6000;

std::string config_file(const std::string& name);

using test_kernel = std::function<void(tl::context&)>;

struct kernel_outcome {
  machine_run run;
  std::vector<op_record> ops; ///< the op log as written (op_key order)
  bool replayed = false;
  memory_image final_image;   ///< the deployed image after the Phase 2 replay
};

/// Runs kernel `name` on each PE of `kernels` ("sip0.cube0.pe0" -> body),
/// `deploy` as every memory's initial contents (null: zeros). With a clean
/// run, finishes the op log and replays it on a copy of `deploy`.
kernel_outcome run_kernels(const std::map<std::string, test_kernel>& kernels,
                           std::shared_ptr<const memory_image> deploy = nullptr,
                           const std::string& name = "k", size_t threads = 1);

/// The same for one kernel on sip0.cube0.pe0.
kernel_outcome run_kernel_on_pe0(test_kernel body,
                                 std::shared_ptr<const memory_image> deploy = nullptr,
                                 const std::string& name = "k");

/// Figure `name` of node `node` (throws if absent).
uint64_t figure(const machine_run& r, const std::string& node, const std::string& name);

/// A global address in sip0.cube0's HBM.
inline uint64_t hbm(uint64_t offset) {
  return global_address{mem_space::hbm, 0, 0, 0, offset}.encode();
}
/// Offset `offset` of PE `pe`'s TCM in sip0.cube0.
inline uint64_t tcm(uint32_t pe, uint64_t offset) {
  return global_address{mem_space::tcm, 0, 0, pe, offset}.encode();
}

/// first, first + 1, ..., n values.
inline std::vector<float> iota(float first, size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = first + static_cast<float>(i);
  return v;
}

/// n f32 (or i32) values of `m` from `at`.
inline std::vector<float> floats_at(const memory_image& m, uint64_t at, size_t n) {
  std::vector<float> v(n);
  const auto b = m.read(at, n * 4);
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}
inline std::vector<int32_t> ints_at(const memory_image& m, uint64_t at, size_t n) {
  std::vector<int32_t> v(n);
  const auto b = m.read(at, n * 4);
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

/// Raw bytes of `values`.
template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> b(values.size() * sizeof(T));
  std::memcpy(b.data(), values.data(), b.size());
  return b;
}

} // namespace kb::test
