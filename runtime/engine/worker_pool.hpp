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
#include <vector>

namespace kb {

class worker_pool : public caf::scheduler::abstract_coordinator {
public:
  explicit worker_pool(caf::actor_system& sys);
  ~worker_pool() override;

  /// Installs the pool as the scheduler of actor systems built from `cfg`
  /// (the worker count is `scheduler.max-threads`).
  static void install(caf::actor_system_config& cfg);

  void enqueue(caf::resumable* job) override;
  caf::detail::thread_safe_actor_clock& clock() noexcept override {
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
  caf::detail::thread_safe_actor_clock clock_;
  std::thread timer_;
};

} // namespace kb
