#include "runtime/engine/peer_rings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kb {

namespace {

constexpr uint64_t magic = 0x6b622e72696e6773ULL; // "kb.rings"
constexpr size_t header_bytes = size_t{64} << 10;
constexpr size_t ctl_bytes = 4096; // a ring's two counters, then its data
constexpr size_t slot_bytes = ctl_bytes + peer_rings::ring_bytes;

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  in >> id;
  return id;
}

template <class T>
std::atomic_ref<T> ref(T& x) {
  return std::atomic_ref<T>(x);
}

} // namespace

// Counters are plain words in zeroed pages, used through atomic_ref: a ring
// that is never used is never touched, so its pages are never made.
struct peer_rings::header {
  uint64_t magic;
  uint64_t nonce[2];
  uint32_t shards;
  uint32_t joined[max_shards]; ///< by rank
  struct alignas(64) flag {
    uint32_t idle;
  };
  flag idle[max_shards]; ///< by shard
};

struct peer_rings::ring {
  alignas(64) uint64_t tail; ///< bytes ever written (the writer's)
  alignas(64) uint64_t head; ///< bytes ever read (the reader's)
  char* data() { return reinterpret_cast<char*>(this) + ctl_bytes; }
};

peer_rings::peer_rings(void* base, size_t bytes, int fd, uint32_t shards)
  : base_(base), bytes_(bytes), fd_(fd), shards_(shards) {
  static_assert(sizeof(header) <= header_bytes);
  static_assert(sizeof(ring) <= ctl_bytes);
  static_assert((ring_bytes & (ring_bytes - 1)) == 0);
}

peer_rings::~peer_rings() {
  if (base_)
    ::munmap(base_, bytes_);
  if (fd_ >= 0)
    ::close(fd_);
}

peer_rings::header& peer_rings::head() const {
  return *static_cast<header*>(base_);
}

peer_rings::ring& peer_rings::at(uint32_t from, uint32_t to) const {
  char* b = static_cast<char*>(base_) + header_bytes +
            (size_t{from} * shards_ + to) * slot_bytes;
  return *reinterpret_cast<ring*>(b);
}

std::shared_ptr<peer_rings> peer_rings::create(uint32_t shards) {
  if (shards < 2 || shards > max_shards)
    return nullptr;
  const std::string boot = boot_id();
  if (boot.empty())
    return nullptr;
  const int fd = ::memfd_create("kb.peer_rings", MFD_CLOEXEC);
  if (fd < 0)
    return nullptr;
  const size_t bytes = header_bytes + size_t{shards} * shards * slot_bytes;
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    ::close(fd);
    return nullptr;
  }
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    ::close(fd);
    return nullptr;
  }
  std::shared_ptr<peer_rings> r(new peer_rings(base, bytes, fd, shards));
  header& h = r->head();
  std::random_device rd;
  h.nonce[0] = (uint64_t{rd()} << 32) | rd();
  h.nonce[1] = (uint64_t{rd()} << 32) | rd();
  h.shards = shards;
  ref(h.magic).store(magic, std::memory_order_release);
  r->advert_ = fmt::format("{} {} {} {:016x}{:016x}", boot, ::getpid(), fd, h.nonce[0], h.nonce[1]);
  return r;
}

std::shared_ptr<peer_rings> peer_rings::attach(const std::string& advert, uint32_t shards) {
  std::istringstream in(advert);
  std::string boot, nonce;
  long pid = 0;
  int fd = -1;
  if (!(in >> boot >> pid >> fd >> nonce) || nonce.size() != 32 || pid <= 0 || fd < 0)
    return nullptr;
  if (boot != boot_id() || shards < 2 || shards > max_shards)
    return nullptr;
  const int mine = ::open(fmt::format("/proc/{}/fd/{}", pid, fd).c_str(), O_RDWR | O_CLOEXEC);
  if (mine < 0)
    return nullptr;
  struct stat st {};
  const size_t bytes = header_bytes + size_t{shards} * shards * slot_bytes;
  if (::fstat(mine, &st) != 0 || static_cast<size_t>(st.st_size) != bytes) {
    ::close(mine);
    return nullptr;
  }
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mine, 0);
  ::close(mine);
  if (base == MAP_FAILED)
    return nullptr;
  std::shared_ptr<peer_rings> r(new peer_rings(base, bytes, -1, shards));
  const header& h = r->head();
  const std::string theirs = fmt::format("{:016x}{:016x}", h.nonce[0], h.nonce[1]);
  if (ref(const_cast<uint64_t&>(h.magic)).load(std::memory_order_acquire) != magic ||
      theirs != nonce || h.shards != shards)
    return nullptr; // the same pid and fd, but not this run's segment
  r->advert_ = advert;
  return r;
}

void peer_rings::join(uint32_t rank) {
  if (rank < max_shards)
    ref(head().joined[rank]).store(1, std::memory_order_seq_cst);
}

bool peer_rings::joined(uint32_t rank) const {
  return rank < max_shards && ref(head().joined[rank]).load(std::memory_order_seq_cst) != 0;
}

size_t peer_rings::write_some(uint32_t from, uint32_t to, const char* p, size_t n) {
  ring& r = at(from, to);
  const uint64_t h = ref(r.head).load(std::memory_order_acquire);
  const uint64_t t = ref(r.tail).load(std::memory_order_relaxed);
  const size_t k = std::min<size_t>(n, ring_bytes - static_cast<size_t>(t - h));
  if (k == 0)
    return 0;
  const size_t at0 = static_cast<size_t>(t & (ring_bytes - 1));
  const size_t first = std::min(k, ring_bytes - at0);
  std::memcpy(r.data() + at0, p, first);
  std::memcpy(r.data(), p + first, k - first);
  ref(r.tail).store(t + k, std::memory_order_release);
  return k;
}

size_t peer_rings::read_all(uint32_t from, uint32_t to, std::vector<char>& out) {
  ring& r = at(from, to);
  const uint64_t t = ref(r.tail).load(std::memory_order_acquire);
  const uint64_t h = ref(r.head).load(std::memory_order_relaxed);
  const size_t k = static_cast<size_t>(t - h);
  if (k == 0)
    return 0;
  const size_t at0 = static_cast<size_t>(h & (ring_bytes - 1));
  const size_t first = std::min(k, ring_bytes - at0);
  out.insert(out.end(), r.data() + at0, r.data() + at0 + first);
  out.insert(out.end(), r.data(), r.data() + (k - first));
  ref(r.head).store(t, std::memory_order_release);
  return k;
}

bool peer_rings::has_data(uint32_t from, uint32_t to) const {
  ring& r = at(from, to);
  return ref(r.tail).load(std::memory_order_acquire) != ref(r.head).load(std::memory_order_relaxed);
}

void peer_rings::send_frame(uint32_t from, uint32_t to, const std::vector<char>& bytes,
                            const std::function<void()>& while_full) {
  const auto len = static_cast<uint32_t>(bytes.size());
  char prefix[4];
  std::memcpy(prefix, &len, 4);
  auto put = [&](const char* p, size_t n) {
    while (n > 0) {
      const size_t k = write_some(from, to, p, n);
      p += k;
      n -= k;
      if (n > 0 && k == 0)
        while_full();
    }
  };
  put(prefix, 4);
  put(bytes.data(), bytes.size());
}

void peer_rings::set_idle(uint32_t s, bool idle) {
  ref(head().idle[s].idle).store(idle ? 1 : 0, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool peer_rings::claim_doorbell(uint32_t to) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  auto flag = ref(head().idle[to].idle);
  return flag.load(std::memory_order_relaxed) != 0 && flag.exchange(0) != 0;
}

size_t frame_reader::pull(peer_rings& rings, uint32_t from, uint32_t to) {
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  return rings.read_all(from, to, buf_);
}

bool frame_reader::next(std::vector<char>& out) {
  if (buf_.size() - pos_ < 4)
    return false;
  uint32_t len = 0;
  std::memcpy(&len, buf_.data() + pos_, 4);
  if (buf_.size() - pos_ - 4 < len)
    return false;
  out.assign(buf_.begin() + static_cast<std::ptrdiff_t>(pos_ + 4),
             buf_.begin() + static_cast<std::ptrdiff_t>(pos_ + 4 + len));
  pos_ += 4 + len;
  if (pos_ > (size_t{1} << 20) && pos_ * 2 > buf_.size()) { // keep the buffer small
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
    pos_ = 0;
  }
  return true;
}

bool peer_rings_slot::ring_to(uint32_t s) const {
  const uint32_t r = s / std::max<uint32_t>(1, per_process);
  return rings && r != rank && rings->joined(rank) && rings->joined(r);
}

bool peer_rings_enabled() {
  const char* v = std::getenv("KB_PEER_RINGS");
  return v == nullptr || std::string_view(v) != "0";
}

} // namespace kb
