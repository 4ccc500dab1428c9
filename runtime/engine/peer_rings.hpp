#pragma once
// Peer rings: the hubs of a split run whose processes share a host exchange
// their peer batches through shared memory instead of CAF's network layer
// (docs/adr/0041-peer-rings.md, issue 36).
//
// A loopback TCP message, as CAF's BASP broker sends it, wakes a sleeping
// thread at each end: about 35 us one way on a 2-core VM, and a split run's
// window needs one. A ring in shared memory costs a copy, and a shard that
// waits for its peers polls the rings for a while before it sleeps; a
// writer rings the reader's doorbell (a CAF message) only once the reader
// has said it stopped polling.
//
// One segment holds a ring for every ordered pair of shards (only pairs in
// different processes are used; the others' pages are never touched). Rank
// 0 makes it (a memfd) once the shards are planned; another rank on the same
// host maps it through /proc/<pid>/fd/<fd> from rank 0's advert, checked by
// the host's boot id and a random nonce, and says so in the segment
// (`join`). A rank that cannot (another host, another pid namespace) uses
// CAF, and so does every pair with a process that did not join.
//
// Each ring has one writer (the sending shard's hub) and one reader (the
// addressee's hub): a single-producer single-consumer byte queue of frames,
// a 4-byte length and a Cap'n Proto batch. A frame longer than the ring
// goes in pieces while the reader takes them.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kb {

class peer_rings {
public:
  /// Bytes of each ring's data (a power of two).
  static constexpr size_t ring_bytes = size_t{1} << 18;
  /// Runs of more shards keep CAF's transport (the segment has shards^2
  /// rings of address space).
  static constexpr uint32_t max_shards = 128;

  /// Rank 0: a segment for `shards` shards; null where there can be none
  /// (one shard, more than max_shards, no memfd).
  static std::shared_ptr<peer_rings> create(uint32_t shards);
  /// Another rank: rank 0's segment from its advert, null where it is not
  /// to be had here (another host or pid namespace, another run's segment,
  /// another shard count, an empty advert).
  static std::shared_ptr<peer_rings> attach(const std::string& advert, uint32_t shards);
  ~peer_rings();
  peer_rings(const peer_rings&) = delete;
  peer_rings& operator=(const peer_rings&) = delete;

  /// How another process finds this segment: "<boot id> <pid> <fd> <nonce>".
  const std::string& advert() const { return advert_; }
  uint32_t shards() const { return shards_; }

  /// Process `rank` uses the rings (before its hubs say hello).
  void join(uint32_t rank);
  bool joined(uint32_t rank) const;

  /// Appends what fits of `n` bytes to ring from -> to; returns how many.
  size_t write_some(uint32_t from, uint32_t to, const char* p, size_t n);
  /// Appends everything ring from -> to holds to `out`; returns how much.
  size_t read_all(uint32_t from, uint32_t to, std::vector<char>& out);
  /// Whether ring from -> to holds bytes.
  bool has_data(uint32_t from, uint32_t to) const;

  /// Writes one frame (its length, then `bytes`); while the ring is full,
  /// calls `while_full` (the writer takes in what its own rings hold, so
  /// that two full rings never wait for each other).
  void send_frame(uint32_t from, uint32_t to, const std::vector<char>& bytes,
                  const std::function<void()>& while_full);

  /// Shard `s` stops polling its rings (true) or starts (false). Going idle
  /// is a full fence: a reader that then finds its rings empty will get a
  /// doorbell for anything written after (claim_doorbell).
  void set_idle(uint32_t s, bool idle);
  /// After writing to shard `to`: true (once) when it is idle, so the
  /// writer must ring its doorbell. A full fence first.
  bool claim_doorbell(uint32_t to);

private:
  struct header;
  struct ring;
  peer_rings(void* base, size_t bytes, int fd, uint32_t shards);
  ring& at(uint32_t from, uint32_t to) const;
  header& head() const;

  void* base_ = nullptr;
  size_t bytes_ = 0;
  int fd_ = -1; ///< rank 0: the memfd, open while the run lasts
  uint32_t shards_ = 0;
  std::string advert_;
};

/// A reader's frames from one ring: bytes taken in, whole frames handed on.
class frame_reader {
public:
  /// Takes in what ring from -> to holds; returns the bytes.
  size_t pull(peer_rings& rings, uint32_t from, uint32_t to);
  /// The next whole frame into `out`; false when none is whole yet.
  bool next(std::vector<char>& out);

private:
  std::vector<char> buf_;
  size_t pos_ = 0; ///< start of the first frame not handed on
};

/// The rings of a run, for the hubs of this process: set before they say
/// hello, read when they start (every rank has joined by then).
struct peer_rings_slot {
  std::shared_ptr<peer_rings> rings;
  uint32_t rank = 0;         ///< this process
  uint32_t per_process = 1;  ///< shards of each process (shard s is rank s / per_process)
  /// Whether shard `s`'s peer batches go through the rings from this process.
  bool ring_to(uint32_t s) const;
};

/// Off when KB_PEER_RINGS=0 (side-by-side measurements of the transports).
bool peer_rings_enabled();

} // namespace kb
