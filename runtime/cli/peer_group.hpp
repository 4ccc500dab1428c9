#pragma once
// The launcher's side of a run split over processes: the other ranks are
// peers (`kernbench peer`), started here on this host (`run --procs N`:
// N-1 local `kernbench peer --listen 127.0.0.1:0 --once`) or already
// running on other hosts (`run --peers HOST:PORT,...`). Either way they
// get the same frames (peer_protocol.hpp): hello, the job, go, and they
// answer with done.
//
// A watcher thread exchanges heartbeats with every peer during the run.
// A peer whose connection closes before it is done, or that stays silent
// for `peer_silence`, is lost; the run usually notices by itself (its
// shards' connection breaks) and ends with an error, and if it has not
// within `grace`, the watcher ends this process (status 1) naming the peer
// and the simulated time reached.

#include "runtime/cli/peer_channel.hpp"
#include "runtime/cli/process_group.hpp"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kb {

class peer_group {
public:
  /// `who` prefixes messages ("kernbench run").
  explicit peer_group(std::string who, std::chrono::milliseconds grace = std::chrono::seconds(2));
  peer_group(const peer_group&) = delete;
  peer_group& operator=(const peer_group&) = delete;
  ~peer_group();

  /// Starts `count` peers on this host, ranks in the order added.
  void add_local(uint32_t count);
  /// Peers already listening elsewhere, ranks in the order added.
  void add_remote(const std::vector<host_port>& peers);
  /// Ranks of the run: this process plus every peer.
  uint32_t ranks() const { return static_cast<uint32_t>(members_.size()) + 1; }

  /// Connects to every peer, checks that it runs this very build, and
  /// hands it `job` with its rank; throws std::runtime_error naming the
  /// peer that cannot be reached or refuses (version or configuration
  /// mismatch). Then the watcher starts.
  void connect(peer_job job);
  /// Rank 0 listens on `port`: every peer starts its part.
  void go(uint16_t port);

  struct outcome {
    std::string error; ///< one line per peer lost or failed; empty if all is well
    wire_totals wire;  ///< what the peers' parts sent to other processes
  };
  /// After this process's part: waits until every peer is done or lost
  /// (`limit` at most), then stops watching.
  outcome finish(std::chrono::milliseconds limit);

private:
  enum class state { connecting, running, done, lost };
  struct member {
    host_port addr;
    std::string label; ///< "peer 127.0.0.2:4000 (rank 1)"
    pid_t pid = -1;    ///< local peers
    std::unique_ptr<peer_channel> ch;
    state st = state::connecting;
    std::string why;       ///< lost: how; done: the part's stderr if it failed
    uint64_t reached_ps = 0; ///< simulated time when it was lost
    uint32_t lost_nth = 0;   ///< lost: 1 for the first peer lost, 2 for the next, ...
    peer_done done;
    std::chrono::steady_clock::time_point heard;
  };
  void connect_one(member& m, peer_job job);
  void watch();
  /// Ends the watcher (wakes it through `wake_`) and waits for it.
  void stop_watching();
  void lose(member& m, std::string why);
  std::string loss_line(const member& m) const;
  /// The lost members in the order they were lost: the first names the
  /// cause (a peer that then missed its report because the run ended early
  /// comes after it, whatever its rank).
  std::vector<const member*> lost_in_order() const;

  std::string who_;
  std::chrono::milliseconds grace_;
  std::unique_ptr<process_group> locals_;
  std::vector<int> stdout_fds_; ///< local peers' standard output
  std::vector<member> members_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool finishing_ = false;
  std::optional<std::chrono::steady_clock::time_point> first_loss_;
  uint32_t losses_ = 0; ///< peers lost so far (member::lost_nth)
  int wake_[2] = {-1, -1}; ///< a byte here wakes the watcher's poll
  std::thread watcher_;
};

} // namespace kb
