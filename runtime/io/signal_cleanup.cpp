#include "runtime/io/signal_cleanup.hpp"

#include "runtime/io/stop_request.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstring>

namespace kb::signal_cleanup {

namespace {

enum class kind : int { free = 0, claimed, file, folder, process };

/// Enough for every temporary of one run (an output or two per option, the
/// op log, a sweep's folder and its running points).
constexpr int slots = 256;
constexpr size_t max_path = 4096;

struct slot {
  std::atomic<int> what{static_cast<int>(kind::free)};
  pid_t pid = 0;
  char path[max_path] = {};
};

std::array<slot, slots>& table() {
  static std::array<slot, slots> t;
  return t;
}

/// Removes the files of `dir` (one level), then `dir`: syscalls only.
void remove_folder(const char* dir) {
  const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0)
        break;
      for (long off = 0; off < n;) {
        struct linux_dirent64 {
          ino64_t d_ino;
          off64_t d_off;
          unsigned short d_reclen;
          unsigned char d_type;
          char d_name[1];
        };
        const auto* d = reinterpret_cast<const linux_dirent64*>(buf + off);
        const char* name = d->d_name;
        if (!(name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))))
          ::unlinkat(fd, name, 0);
        off += d->d_reclen;
      }
    }
    ::close(fd);
  }
  ::rmdir(dir);
}

void install_handler(int sig);

void say(const char* text) {
  size_t n = 0;
  while (text[n] != 0)
    ++n;
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, text, n);
}

void on_signal(int sig) {
  // A run's event loop is going (stop_request::armed): the first SIGINT or
  // SIGTERM stops it at its next safe point, and it writes what it has.
  if ((sig == SIGINT || sig == SIGTERM) && stop_request::is_armed() &&
      stop_request::request(sig)) {
    say("\nkernbench: ");
    say(stop_request::name_of(sig));
    say(": stopping the run at its next safe point to report what it has "
        "(send it again to end at once)\n");
    install_handler(sig); // SA_RESETHAND made it the default again
    return;
  }
  remove_now();
  // The default action, so that the exit status names the signal.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

entry claim(kind what, const std::string& path, pid_t pid, entry (*make)(int)) {
  if (path.size() >= max_path)
    return make(-1);
  auto& t = table();
  for (int i = 0; i < slots; ++i) {
    int expected = static_cast<int>(kind::free);
    if (!t[i].what.compare_exchange_strong(expected, static_cast<int>(kind::claimed)))
      continue;
    std::memcpy(t[i].path, path.c_str(), path.size() + 1);
    t[i].pid = pid;
    t[i].what.store(static_cast<int>(what), std::memory_order_release);
    return make(i);
  }
  return make(-1);
}

void install_handler(int sig) {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  ::sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  ::sigaction(sig, &sa, nullptr);
}

} // namespace

void install() {
  static std::atomic<bool> done{false};
  if (done.exchange(true))
    return;
  table(); // made before any signal can come
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    // A signal the parent ignores (a background job of a script ignores
    // SIGINT) stays ignored.
    if (old.sa_handler == SIG_IGN)
      continue;
    install_handler(sig);
  }
}

void remove_now() {
  for (slot& s : table()) {
    const auto what = static_cast<kind>(s.what.load(std::memory_order_acquire));
    if (what == kind::file)
      ::unlink(s.path);
    else if (what == kind::folder)
      remove_folder(s.path);
    else if (what == kind::process && s.pid > 0) {
      ::kill(s.pid, SIGTERM);
      ::kill(s.pid, SIGCONT);
    }
  }
}

void ignore_interrupt() {
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigemptyset(&ign.sa_mask);
  ::sigaction(SIGINT, &ign, nullptr);
}

entry& entry::operator=(entry&& o) noexcept {
  if (this != &o) {
    release();
    slot_ = o.slot_;
    o.slot_ = -1;
  }
  return *this;
}

void entry::release() {
  if (slot_ >= 0)
    table()[static_cast<size_t>(slot_)].what.store(static_cast<int>(kind::free),
                                                   std::memory_order_release);
  slot_ = -1;
}

entry file(const std::string& path) {
  return claim(kind::file, path, 0, [](int s) { return entry(s); });
}

entry folder(const std::string& path) {
  return claim(kind::folder, path, 0, [](int s) { return entry(s); });
}

entry process(pid_t pid) {
  return claim(kind::process, std::string(), pid, [](int s) { return entry(s); });
}

} // namespace kb::signal_cleanup
