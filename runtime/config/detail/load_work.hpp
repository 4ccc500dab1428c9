#pragma once
// Units of work done while loading a topology, counted so that a test can
// check that loading a machine grows linearly with its size (issue 31)
// without timing anything.

#include <cstdint>

namespace kb::detail {

/// What loading did, on this thread, since the last `reset_load_work()`.
struct load_work {
  /// YAML map entries visited by param_reader lookups.
  uint64_t yaml_entries = 0;
  /// Node ids tried against a link pattern.
  uint64_t pattern_tests = 0;
  /// Node ids looked up by name (binary searches).
  uint64_t id_lookups = 0;
  /// Nodes and directed links written into the topology_spec.
  uint64_t nodes = 0;
  uint64_t links = 0;
};

/// This thread's counters (loading is single-threaded; a thread-local keeps
/// tests on other threads apart).
load_work& this_thread_load_work();

inline void reset_load_work() {
  this_thread_load_work() = {};
}

} // namespace kb::detail
