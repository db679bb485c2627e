// <rcu>
//
// void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: if the call does not strongly happen before the lock opening a region R,
//   blocks until the unlock closing R happens.
//
// A thread that closed all its regions and exited has no region left to wait for: whatever
// per-thread state it left behind must not hold up later grace periods (RS-15). Relies
// on: the reader threads being joined, with every region closed, before the synchronize
// (exiting inside a region is undefined and not tested).
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <cstddef>

using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::within_watchdog;

TEST_CASE("saferecl.rcu.domain.func/2 R29: threads that used regions and exited do not block later grace periods" *
          doctest::test_suite("core.lifetime")) {
  constexpr std::size_t kWaves = 3;
  constexpr std::size_t kThreadsPerWave = 8;
  for (std::size_t wave = 0; wave < kWaves; ++wave) {  // later waves may reuse what earlier left
    within_watchdog("a wave of reader threads running to their exit", [] {
      saferecl::test::run_in_parallel(kThreadsPerWave, [](std::size_t) {
        sut::rcu_domain& dom = sut::rcu_default_domain();
        for (int i = 0; i < 100; ++i) {
          dom.lock();
          dom.lock();
          dom.unlock();
          dom.unlock();
        }
      });
    });
    within_watchdog("rcu_synchronize after the readers exited", [] { sut::rcu_synchronize(); });
  }

  auto* p = new plain_object;
  const auto id = p->id;
  sut::rcu_retire(p, quarantine_deleter{});
  within_watchdog("rcu_barrier after the readers exited", [] { sut::rcu_barrier(); });
  CHECK(objects().reclaim_count(id) == 1);
}
