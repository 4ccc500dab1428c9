// kernbench's CAF scheduler: actors run to completion on any worker count,
// idle workers take work from busy ones, delayed messages arrive, and an
// actor system stops cleanly with messages still queued.

#include "runtime/engine/worker_pool.hpp"

#include "runtime/engine/simulation.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <set>
#include <thread>

namespace kb {
namespace {

// Function-based actors here all take an argument: CAF 0.17 binds a null
// reference for the empty argument pack of an argument-less one (UBSan
// reports it).

caf::actor_system_config pool_config(size_t workers) {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", workers);
  cfg.set("logger.verbosity", caf::atom("quiet"));
  worker_pool::install(cfg);
  return cfg;
}

// A chain of `n` relays: each adds one and passes the count on; the last
// answers the original requester. 10,000 hops cross actors and workers.
caf::behavior relay(caf::event_based_actor* self, caf::actor next) {
  return {[self, next](int hops) -> caf::result<int> {
    if (!next)
      return hops + 1;
    self->delegate(next, hops + 1);
    return caf::delegated<int>{};
  }};
}

TEST(WorkerPool, IsTheSchedulerOfTheSystem) {
  auto cfg = pool_config(2);
  caf::actor_system sys{cfg};
  worker_pool* pool = dynamic_cast<worker_pool*>(&sys.scheduler());
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->num_workers(), 2u);
}

TEST(WorkerPool, RelayChainCompletesOnAnyWorkerCount) {
  for (size_t workers : {1u, 2u, 4u}) {
    auto cfg = pool_config(workers);
    caf::actor_system sys{cfg};
    caf::actor next;
    for (int i = 0; i < 10000; ++i)
      next = sys.spawn(relay, next);
    caf::scoped_actor self{sys};
    int got = -1;
    self->request(next, std::chrono::seconds(30), 0)
      .receive([&](int hops) { got = hops; },
               [&](caf::error& e) { FAIL() << sys.render(e); });
    EXPECT_EQ(got, 10000) << workers << " workers";
  }
}

// 64 actors each busy for 2 ms, all woken by one actor, so all queued on
// that actor's worker: with two workers the other one must take some of
// them from that queue (one worker alone would need 128 ms and never show a
// second thread).
TEST(WorkerPool, IdleWorkersTakeWorkFromBusyOnes) {
  auto cfg = pool_config(2);
  caf::actor_system sys{cfg};
  auto busy = [](caf::event_based_actor*, int work_ms) -> caf::behavior {
    return {[work_ms](caf::actor& reply_to) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(work_ms);
      while (std::chrono::steady_clock::now() < until) {
      }
      caf::anon_send(reply_to, std::hash<std::thread::id>{}(std::this_thread::get_id()));
    }};
  };
  std::vector<caf::actor> actors;
  for (int i = 0; i < 64; ++i)
    actors.push_back(sys.spawn(busy, 2));
  auto fan_out = [](caf::event_based_actor* a, std::vector<caf::actor> targets) -> caf::behavior {
    return {[a, targets](caf::actor& reply_to) {
      for (const auto& x : targets)
        a->send(x, reply_to);
    }};
  };
  auto fan = sys.spawn(fan_out, actors);
  caf::scoped_actor self{sys};
  self->send(fan, caf::actor_cast<caf::actor>(self));
  std::set<size_t> threads;
  for (size_t i = 0; i < actors.size(); ++i)
    self->receive([&](size_t tid) { threads.insert(tid); },
                  caf::after(std::chrono::seconds(30)) >> [] { FAIL() << "no answer"; });
  EXPECT_EQ(threads.size(), 2u);
}

TEST(WorkerPool, DelayedMessagesArrive) {
  auto cfg = pool_config(1);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto doubler = [](caf::event_based_actor* a, int delay_ms) -> caf::behavior {
    return {[a, delay_ms](int x) {
      a->delayed_send(caf::actor_cast<caf::actor>(a->current_sender()),
                      std::chrono::milliseconds(delay_ms), x * 2);
    }};
  };
  auto echo = sys.spawn(doubler, 20);
  const auto t0 = std::chrono::steady_clock::now();
  self->send(echo, 21);
  int got = 0;
  self->receive([&](int x) { got = x; },
                caf::after(std::chrono::seconds(30)) >> [] { FAIL() << "no answer"; });
  EXPECT_EQ(got, 42);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(20));
}

// Actors still holding messages when the system goes down are cleaned up
// (the sanitizer build checks that nothing leaks) and nothing hangs.
TEST(WorkerPool, StopsWithWorkStillQueued) {
  auto cfg = pool_config(2);
  caf::actor_system sys{cfg};
  auto sink = [](caf::event_based_actor*, int pause_ms) -> caf::behavior {
    return {[pause_ms](int) { std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms)); }};
  };
  caf::scoped_actor self{sys};
  for (int i = 0; i < 8; ++i) {
    auto a = sys.spawn(sink, 1);
    for (int k = 0; k < 100; ++k)
      self->send(a, k);
    self->send_exit(a, caf::exit_reason::user_shutdown);
  }
}

TEST(WorkerPool, UnknownPolicyIsAClearError) {
  simulation sim;
  setenv("KB_CAF_POLICY", "fastest", 1);
  try {
    sim.run({});
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "KB_CAF_POLICY must be pool, sharing or stealing, not 'fastest'");
  }
  unsetenv("KB_CAF_POLICY");
}

} // namespace
} // namespace kb
