// <rcu>
//
// [saferecl.rcu.general]/6: each scheduled evaluation is evaluated at most once; scheduled
//   evaluations may be evaluated concurrently with each other.
// [saferecl.rcu.domain.func]/4: rcu_barrier blocks until every earlier-scheduled
//   evaluation has been evaluated -- so after the last barrier: exactly once.
//
// Relies on: the writers being joined before the final rcu_barrier (so every retire
// happens before it); barriers called only outside regions; thread-safe deleters (the
// object log is atomic).
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <atomic>
#include <cstddef>
#include <vector>

using saferecl::test::object_log;
using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::rcu_object;
using saferecl::test::within_watchdog;

namespace {

// Retires one object; the writer varies how, and whether it is inside a region.
object_log::id_t retire_one(std::size_t i) {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  const bool in_region = i % 3 == 0;
  if (in_region) dom.lock();
  object_log::id_t id;
  if (i % 2 == 0) {
    auto* p = new rcu_object;
    id = p->id;
    p->retire();
  } else {
    auto* p = new plain_object;
    id = p->id;
    sut::rcu_retire(p, quarantine_deleter{});
  }
  if (in_region) dom.unlock();
  return id;
}

}  // namespace

TEST_CASE("saferecl.rcu.general/6 R5: concurrent retires and barriers run every deleter exactly once" *
          doctest::test_suite("core.concurrency")) {
  constexpr std::size_t kWriters = 4;
  constexpr std::size_t kPerWriter = 2000;
  std::vector<object_log::id_t> ids[kWriters];
  std::atomic<bool> writing{true};

  saferecl::test::thread_group barrier_callers;
  for (int b = 0; b < 2; ++b)
    barrier_callers.spawn([&] {
      while (writing.load()) sut::rcu_barrier();
    });
  within_watchdog("four writers retiring beside two barrier loops", [&] {
    saferecl::test::run_in_parallel(kWriters, [&](std::size_t w) {
      for (std::size_t i = 0; i < kPerWriter; ++i) ids[w].push_back(retire_one(i));
    });
  });
  writing = false;
  within_watchdog("the barrier loops ending", [&] { barrier_callers.join(); });
  within_watchdog("the final rcu_barrier", [] { sut::rcu_barrier(); });

  int not_once = 0;
  for (const auto& writer : ids)
    for (auto id : writer) not_once += objects().reclaim_count(id) != 1;
  CHECK(not_once == 0);
  CHECK(objects().repeated_reclaims() == 0);
}
