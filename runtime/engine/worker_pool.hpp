#pragma once
// kernbench's CAF scheduler: a pool of worker threads, each with its own FIFO
// of ready actors, that steal from each other only when they run dry.
//
// Why not CAF's own (docs/adr/0006-worker-pool.md): the engine's traffic is
// a hub waking its nodes and the nodes answering it, window after window.
// CAF 0.17's work-sharing policy puts every wake-up through one mutex-guarded
// std::list (a heap node, a lock and a condition-variable signal each), and
// its workers resume actors inside a logger scope that takes a shared
// spinlock twice per resume even when logging is off; work stealing backs
// off into sleeps between windows. Here a wake-up from a worker goes to that
// worker's own queue (the nodes a hub wakes run on the hub's core, warm in
// its cache), an idle worker spins briefly, then steals, then sleeps, and the
// workers run without a CAF logger. Actors see no difference: this is the
// scheduler module CAF's actor_system_config lets a program supply.

#include <caf/actor_system_config.hpp>
#include <caf/detail/thread_safe_actor_clock.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

namespace kb {

/// CAF's thread-safe clock, except that dropping the timeouts of an actor
/// that never set one costs nothing. CAF drops them at every actor's end:
/// each drop is a heap event through a 64-slot ring to the clock thread, so
/// the 8,300 nodes of a 1,024-PE machine ending at once stalled the workers
/// on a full ring. The nodes set none (their timers are virtual time).
class pool_clock : public caf::detail::thread_safe_actor_clock {
public:
  using super = caf::detail::thread_safe_actor_clock;
  void set_ordinary_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type,
                            uint64_t id) override;
  void set_request_timeout(time_point t, caf::abstract_actor* self, caf::message_id id) override;
  void set_multi_timeout(time_point t, caf::abstract_actor* self, caf::atom_value type,
                         uint64_t id) override;
  void cancel_timeouts(caf::abstract_actor* self) override;

private:
  void arm(caf::abstract_actor* self);

  std::atomic<size_t> armed_{0}; ///< size of `with_timeouts_`
  std::mutex mtx_;
  std::unordered_set<caf::abstract_actor*> with_timeouts_; ///< until dropped
};

class worker_pool : public caf::scheduler::abstract_coordinator {
public:
  explicit worker_pool(caf::actor_system& sys);
  ~worker_pool() override;

  /// Installs the pool as the scheduler of actor systems built from `cfg`
  /// (the worker count is `scheduler.max-threads`).
  static void install(caf::actor_system_config& cfg);

  void enqueue(caf::resumable* job) override;
  pool_clock& clock() noexcept override {
    return clock_;
  }

  class worker;

protected:
  void start() override;
  void stop() override;

private:
  friend class worker;
  /// A job for someone: any worker's queue, waking a sleeper if there is one.
  void push_to(size_t w, caf::resumable* job);
  caf::resumable* steal(size_t thief);
  caf::resumable* wait_for_job(size_t w);
  void wake_one();

  std::vector<std::unique_ptr<worker>> workers_;
  std::atomic<size_t> next_{0};
  std::atomic<int> sleepers_{0};
  std::mutex sleep_mtx_;
  std::condition_variable sleep_cv_;
  pool_clock clock_;
  std::thread timer_;
};

} // namespace kb
