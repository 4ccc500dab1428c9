#pragma once
// Phase 2 (seed ADR-0020 D6): replay an op log on the initial memory image.
//
// A separate group of CAF actors in their own actor_system: one coordinator
// and N workers. The coordinator holds the dependency graph
// (dependency_graph.hpp) and hands ready ops (every dependency done) to idle
// workers; ready ops with the same op name, kind, shapes, dtypes and
// parameters go to one worker as one batch (same-shape batching, D6). Workers
// run the compute kernels (op_compute.hpp) on the shared image. The result is
// the same byte for byte for any number of workers: conflicting ops run in
// log order, independent ops touch disjoint bytes, and every kernel is
// deterministic for its inputs.
//
// Errors (a malformed record, a bad or cyclic dependency, an op that throws)
// are std::runtime_error naming the op (id, component, name). Replay never
// hangs: a failing op stops dispatch, the ops in flight finish, replay throws.

#include "runtime/data/dependency_graph.hpp"
#include "runtime/data/memory_image.hpp"
#include "runtime/data/op_compute.hpp"
#include "runtime/data/op_record.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

namespace kb {

struct replay_options {
  /// Worker actors; 0 means std::thread::hardware_concurrency().
  unsigned workers = 0;
  /// Debug mode (seed ADR-0020 D11 per-op snapshots): replays sequentially in log
  /// order on the calling thread, calling this after every op with the image
  /// as that op left it.
  std::function<void(const op_record&, const memory_image&)> after_each;
  /// Runs one op and returns its flops; empty means kb::execute. Another
  /// kernel set (a reference implementation, a test double) plugs in here. It
  /// is called from the worker threads, one op at a time per worker.
  std::function<uint64_t(const op_record&, memory_image&, compute_scratch&)> kernel;
  /// At most this many ops in one batch.
  uint32_t max_batch = 64;
  /// Replay from a file: ops held and replayed at a time (see replay(path)).
  size_t window = size_t{1} << 20;
  dependency_options dependencies;
};

struct replay_stats {
  uint64_t ops = 0;
  uint64_t batches = 0; ///< messages to workers (1 per op in debug mode)
  uint64_t flops = 0;   ///< as flops(op_record) counts them
  double seconds = 0;   ///< wall time of the whole replay, graph building included
};

/// Replays `ops` on `image` (which becomes the final image).
replay_stats replay(const std::vector<op_record>& ops, memory_image& image,
                    const replay_options& options = {});

/// Replays the op log file `oplog` window by window: `options.window`
/// records at a time are read, ordered by t_start and replayed in full
/// before the next window starts, so memory stays bounded. A record whose
/// t_start is earlier than a record of an earlier window is an error (raise
/// the window); explicit dependencies on ops of earlier windows are met by
/// construction; one on an op of a later window is reported as unknown. Ids
/// are remembered (8 bytes per op) to tell earlier ops from unknown ones.
replay_stats replay(const std::filesystem::path& oplog, memory_image& image,
                    const replay_options& options = {});

} // namespace kb
