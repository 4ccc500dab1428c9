#include "runtime/engine/worker_pool.hpp"

#include <caf/actor_system.hpp>
#include <caf/execution_unit.hpp>
#include <caf/logger.hpp>
#include <caf/resumable.hpp>

#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define KB_CPU_RELAX() _mm_pause()
#else
#define KB_CPU_RELAX() static_cast<void>(0)
#endif

#include <pthread.h>

namespace kb {

namespace {

/// Rounds an idle worker spins (each a pause and a look at every queue)
/// before it yields the core: a few microseconds, about the gap between two
/// windows of a busy run.
constexpr int idle_spins = 1000;
/// Rounds it then yields the core between looks (so that a busy worker of an
/// oversubscribed machine gets to run) before it sleeps.
constexpr int idle_yields = 200;
/// An idle worker looks at the other workers' queues only every this many
/// rounds: each look reads a line the busy owner keeps writing, and a thief
/// polling it back to back slows the owner's every push and pop (a
/// cross-core transfer each; worst when the two cores share no cache).
constexpr int steal_every = 32;

/// The job that stops the worker whose queue it is in (never stolen).
class stop_job final : public caf::resumable {
public:
  resume_result resume(caf::execution_unit*, size_t) override {
    return shutdown_execution_unit;
  }
  void intrusive_ptr_add_ref_impl() override {}
  void intrusive_ptr_release_impl() override {}
};

stop_job the_stop_job;

/// A test-and-test-and-set lock: queue operations hold it for a few
/// instructions, so spinning beats parking.
class spin_lock {
public:
  void lock() {
    for (;;) {
      if (!flag_.exchange(true, std::memory_order_acquire))
        return;
      while (flag_.load(std::memory_order_relaxed))
        KB_CPU_RELAX();
    }
  }
  void unlock() { flag_.store(false, std::memory_order_release); }

private:
  std::atomic<bool> flag_{false};
};

} // namespace

class alignas(64) worker_pool::worker : public caf::execution_unit {
public:
  worker(worker_pool& pool, size_t id)
    : caf::execution_unit(&pool.system()), pool_(pool), id_(id) {}

  void exec_later(caf::resumable* job) override { pool_.push_to(id_, job); }

  void push(caf::resumable* job) {
    lock_.lock();
    jobs_.push_back(job);
    size_.store(jobs_.size(), std::memory_order_relaxed);
    lock_.unlock();
  }

  /// The oldest job; a thief never takes the stop job.
  caf::resumable* pop(bool thief) {
    if (size_.load(std::memory_order_relaxed) == 0)
      return nullptr;
    lock_.lock();
    caf::resumable* job = nullptr;
    if (!jobs_.empty() && !(thief && jobs_.front() == &the_stop_job)) {
      job = jobs_.front();
      jobs_.pop_front();
      size_.store(jobs_.size(), std::memory_order_relaxed);
    }
    lock_.unlock();
    return job;
  }

  void start() {
    thread_ = std::thread{[this] { run(); }};
  }
  void join() {
    if (thread_.joinable())
      thread_.join();
  }

  /// Jobs left behind after the thread ended (released by the pool).
  std::deque<caf::resumable*> take_leftovers() {
    std::deque<caf::resumable*> out;
    lock_.lock();
    out.swap(jobs_);
    size_.store(0, std::memory_order_relaxed);
    lock_.unlock();
    return out;
  }

private:
  void run() {
    const std::string name = "kb.worker" + std::to_string(id_);
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
    // No CAF logger on this thread: with none, CAF skips its per-resume
    // actor-id bookkeeping (two shared-spinlock map lookups).
    caf::logger::set_current_actor_system(nullptr);
    system().thread_started();
    const size_t throughput = pool_.max_throughput();
    for (;;) {
      caf::resumable* job = pop(false);
      if (job == nullptr)
        job = pool_.wait_for_job(id_);
      switch (job->resume(this, throughput)) {
        case caf::resumable::resume_later:
          push(job); // to the back of this worker's queue
          break;
        case caf::resumable::done:
        case caf::resumable::awaiting_message:
          caf::intrusive_ptr_release(job);
          break;
        case caf::resumable::shutdown_execution_unit:
          system().thread_terminates();
          return;
      }
    }
  }

  worker_pool& pool_;
  size_t id_;
  spin_lock lock_;
  std::atomic<size_t> size_{0};
  std::deque<caf::resumable*> jobs_;
  std::thread thread_;
};

worker_pool::worker_pool(caf::actor_system& sys)
  : caf::scheduler::abstract_coordinator(sys) {}

worker_pool::~worker_pool() = default;

void worker_pool::install(caf::actor_system_config& cfg) {
  cfg.module_factories.push_back(
    [](caf::actor_system& sys) -> caf::actor_system::module* {
      return new worker_pool(sys);
    });
}

void pool_clock::arm(caf::abstract_actor* self) {
  std::lock_guard<std::mutex> guard{mtx_};
  if (with_timeouts_.insert(self).second)
    armed_.fetch_add(1, std::memory_order_release);
}

void pool_clock::set_ordinary_timeout(time_point t, caf::abstract_actor* self,
                                      caf::atom_value type, uint64_t id) {
  arm(self);
  super::set_ordinary_timeout(t, self, type, id);
}

void pool_clock::set_request_timeout(time_point t, caf::abstract_actor* self,
                                     caf::message_id id) {
  arm(self);
  super::set_request_timeout(t, self, id);
}

void pool_clock::set_multi_timeout(time_point t, caf::abstract_actor* self,
                                   caf::atom_value type, uint64_t id) {
  arm(self);
  super::set_multi_timeout(t, self, type, id);
}

void pool_clock::cancel_timeouts(caf::abstract_actor* self) {
  // An actor's own set and drop run on its own thread, one message at a
  // time, so an actor that armed a timeout finds itself here.
  if (armed_.load(std::memory_order_acquire) == 0)
    return;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (with_timeouts_.erase(self) == 0)
      return;
    armed_.fetch_sub(1, std::memory_order_release);
  }
  super::cancel_timeouts(self);
}

void worker_pool::start() {
  const size_t n = std::max<size_t>(1, num_workers());
  workers_.reserve(n);
  for (size_t i = 0; i < n; ++i)
    workers_.push_back(std::make_unique<worker>(*this, i));
  for (auto& w : workers_)
    w->start();
  // Delayed messages and request timeouts (wall-clock guards only).
  timer_ = std::thread{[this] {
    pthread_setname_np(pthread_self(), "kb.clock");
    system().thread_started();
    clock_.run_dispatch_loop();
    system().thread_terminates();
  }};
  caf::scheduler::abstract_coordinator::start();
}

void worker_pool::stop() {
  // Each worker finishes what is queued before its stop job, then ends.
  for (auto& w : workers_)
    w->push(&the_stop_job);
  {
    std::lock_guard<std::mutex> guard{sleep_mtx_};
    sleep_cv_.notify_all();
  }
  for (auto& w : workers_)
    w->join();
  stop_actors();
  for (auto& w : workers_)
    for (caf::resumable* job : w->take_leftovers())
      if (job != &the_stop_job)
        cleanup_and_release(job);
  clock_.cancel_dispatch_loop();
  timer_.join();
}

void worker_pool::enqueue(caf::resumable* job) {
  // From outside the pool (the main thread, the network layer, the clock):
  // round robin over the workers.
  const size_t n = workers_.size();
  push_to(n == 1 ? 0 : next_.fetch_add(1, std::memory_order_relaxed) % n, job);
}

void worker_pool::push_to(size_t w, caf::resumable* job) {
  workers_[w]->push(job);
  // Pairs with the fence in wait_for_job: either the sleeper sees the job
  // or this sees the sleeper.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_relaxed) > 0)
    wake_one();
}

void worker_pool::wake_one() {
  std::lock_guard<std::mutex> guard{sleep_mtx_};
  sleep_cv_.notify_one();
}

caf::resumable* worker_pool::steal(size_t thief) {
  const size_t n = workers_.size();
  for (size_t k = 1; k < n; ++k)
    if (caf::resumable* job = workers_[(thief + k) % n]->pop(true))
      return job;
  return nullptr;
}

caf::resumable* worker_pool::wait_for_job(size_t w) {
  worker& self = *workers_[w];
  for (int spin = 0; spin < idle_spins + idle_yields; ++spin) {
    if (caf::resumable* job = self.pop(false))
      return job;
    if (spin % steal_every == 0)
      if (caf::resumable* job = steal(w))
        return job;
    if (spin < idle_spins)
      KB_CPU_RELAX();
    else
      std::this_thread::yield();
  }
  std::unique_lock<std::mutex> guard{sleep_mtx_};
  sleepers_.fetch_add(1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (;;) {
    caf::resumable* job = self.pop(false);
    if (job == nullptr)
      job = steal(w);
    if (job != nullptr) {
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
      return job;
    }
    sleep_cv_.wait(guard);
  }
}

} // namespace kb
