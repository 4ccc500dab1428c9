#pragma once
// The data side of a run (seed ADR-0020, DESIGN §5), shared by kernel runs and
// the driver's runs: the op log Phase 1 writes, the Phase 2 replay of it on
// the deployed image, the check of each output against its expected values
// (D11 tolerances) and the .npy dumps.
//
//   data_session s(request, image);       // opens the op log: a path that
//   opts.deploy = image; opts.ops = s.sink();  // cannot be written fails here
//   machine_run r = run_machine(...);
//   data_result d = s.finish(tensors, expected);   // after a clean run
//
// Nothing is logged or replayed unless the request wants results (verify,
// dumps or a kept op log); a temporary op log is removed at the end.

#include "runtime/data/executor.hpp"
#include "runtime/data/memory_image.hpp"
#include "runtime/data/verify.hpp"
#include "runtime/engine/protocol.hpp"
#include "runtime/io/atomic_file.hpp"
#include "runtime/io/signal_cleanup.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kb {

class op_log;
class op_sink;

struct data_request {
  bool verify = false;         ///< replay, then check every output
  std::string dump_dir;        ///< set: every tensor as DIR/<name>.npy
  std::string oplog;           ///< set: keep the op log in this file
  unsigned phase2_workers = 0; ///< executor actors (0: one per core)
  /// Set: the replay runs in log order on one thread and writes one line per
  /// op to this file: the op, its output view and a digest of its output
  /// bytes (seed ADR-0020 D11's debug mode; two runs' files diff op by op).
  std::string op_digests;

  bool wants_results() const {
    return verify || !dump_dir.empty() || !oplog.empty() || !op_digests.empty();
  }
};

/// A tensor of the run, by the name its dump file and messages use.
struct data_tensor {
  std::string name;
  tensor_view view;
  bool output = false;
  std::optional<tolerance> tol = {}; ///< set: verified with this instead of its dtype's
  bool scratch = false; ///< not verified; dumped as the kernel left it
  /// A tensor in several parts (a spread tensor's row blocks, in order):
  /// read back by gathering them; empty: `view` holds it all.
  std::vector<tensor_view> blocks = {};
};

struct data_result {
  bool replayed = false;
  uint64_t op_records = 0;
  replay_stats phase2;
  std::vector<verify_result> verdicts; ///< one per output (with verify)
  bool ok() const;
};

class data_session {
public:
  /// Opens the op log when `r` wants results; throws std::invalid_argument
  /// naming the path when it cannot be written (before the run, not after).
  data_session(const data_request& r, std::shared_ptr<const memory_image> initial);
  ~data_session();
  data_session(const data_session&) = delete;
  data_session& operator=(const data_session&) = delete;

  /// Where the units log their data ops; null when nothing is wanted.
  std::shared_ptr<op_sink> sink() const;

  /// A split run: adds the ops the other processes shipped in their nodes'
  /// summaries (op_shipper) to this process's log; throws std::runtime_error
  /// naming the node if its records are damaged.
  void absorb(const std::vector<node_summary>& nodes);

  /// After a clean run: closes the op log (a --oplog replaces its path
  /// once complete and replayed; without finish, or if the replay fails,
  /// the path given is left as it was), replays it on a copy of the
  /// initial image (when verify, dumps or digests want it), checks every
  /// output of `tensors` against `expected(name)` (with verify) and dumps
  /// every tensor (inputs from the initial image, outputs from the final).
  data_result finish(const std::vector<data_tensor>& tensors,
                     const std::function<std::vector<double>(const std::string&)>& expected);

private:
  data_request request_;
  std::shared_ptr<const memory_image> initial_;
  /// Writes the kept --oplog to its path (a rename, or a copy into a
  /// device, FIFO or pipe); output_error naming it on failure.
  void commit_oplog();

  std::unique_ptr<atomic_file> kept_; ///< a --oplog that is a regular file (or new)
  std::string log_path_;              ///< the file being written: always a temporary
  signal_cleanup::entry log_on_signal_;
  bool temporary_ = false; ///< no --oplog: the log is removed at the end
  bool committed_ = false; ///< the --oplog is at its path
  std::shared_ptr<op_log> log_;
};

} // namespace kb
