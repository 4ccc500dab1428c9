#pragma once
// Terse construction of small hand-made scheduling problems for tests.

#include "runtime/schedule/problem.hpp"

#include <initializer_list>
#include <string>
#include <utility>

namespace kb::sched::test {

class problem_builder {
public:
  problem_builder& pool(std::string name, uint32_t capacity) {
    p_.pools.push_back({std::move(name), capacity});
    return *this;
  }
  /// An op using `uses` (pool name, count) in each of `cycles` cycles.
  problem_builder& op(std::string name, int64_t latency,
                      std::initializer_list<std::pair<const char*, uint32_t>> uses = {},
                      uint32_t cycles = 1) {
    op_spec o;
    o.name = std::move(name);
    o.latency = latency;
    if (uses.size() > 0)
      for (uint32_t c = 0; c < cycles; ++c) {
        o.reservation.emplace_back();
        for (const auto& [pool, count] : uses)
          o.reservation.back().push_back({*p_.find_pool(pool), count});
      }
    p_.ops.push_back(std::move(o));
    return *this;
  }
  problem_builder& max_depth(uint32_t d) {
    p_.ops.back().max_depth = d;
    return *this;
  }
  problem_builder& gid(int64_t g) {
    p_.ops.back().gid = g;
    return *this;
  }
  /// Edge with the source op's latency unless `latency` ≥ 0 is given.
  problem_builder& edge(const char* from, const char* to, uint32_t distance = 0,
                        int64_t latency = -1) {
    edge_spec e;
    e.from = *p_.find_op(from);
    e.to = *p_.find_op(to);
    e.distance = distance;
    e.latency = latency >= 0 ? latency : p_.ops[e.from].latency;
    p_.edges.push_back(e);
    return *this;
  }
  problem_builder& force_serial() {
    p_.force_serial_execution = true;
    return *this;
  }
  problem build() const { return p_; }

private:
  problem p_;
};

} // namespace kb::sched::test
