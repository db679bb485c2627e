// <rcu>
//
// void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: if the call does not strongly happen before the lock opening a region R,
//   blocks until the unlock closing R happens.
//   Synchronization: the unlock closing R strongly happens before the return.
// [saferecl.rcu.domain.members]/2: lock, try_lock and unlock do not introduce data races
//   with each other on the same domain.
//
// Many synchronizers at once, and threads that enter their first region while a
// synchronizer waits (RS-14, RS-16). Relies on: readers confirmed inside before the
// synchronizers start; a short sleep only to show that none has returned yet; no
// synchronizer inside a region.
#include "support/rcu_threads.hpp"
#include "support/test.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

using saferecl::test::blocking_call;
using saferecl::test::region_holder;
using saferecl::test::within_watchdog;

namespace {

sut::rcu_domain& dom() noexcept { return sut::rcu_default_domain(); }

void first_region_of_a_new_thread() {
  std::thread newcomer([] {
    dom().lock();
    dom().unlock();
  });
  newcomer.join();
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/3 R30: four synchronizers blocked by one region all return after its unlock" *
          doctest::test_suite("core.concurrency")) {
  constexpr int kSynchronizers = 4;
  std::atomic<bool> last_words{false};
  region_holder reader(region_holder::lock_default, [&] {
    last_words.store(true, std::memory_order_relaxed);
    region_holder::unlock_default();
  });
  std::atomic<int> saw_last_words{0};
  std::vector<std::unique_ptr<blocking_call>> syncs;
  for (int i = 0; i < kSynchronizers; ++i)
    syncs.push_back(std::make_unique<blocking_call>("one of four rcu_synchronize calls", [&] {
      sut::rcu_synchronize();
      if (last_words.load(std::memory_order_relaxed)) saw_last_words.fetch_add(1);
    }));
  for (auto& sync : syncs) CHECK(sync->still_blocked(saferecl::test::kStillBlockedFor / kSynchronizers));
  reader.release();
  for (auto& sync : syncs) sync->join();
  CHECK(saw_last_words.load() == kSynchronizers);
}

TEST_CASE("saferecl.rcu.domain.func/2 R29: eight threads call rcu_synchronize ten times each beside busy readers" *
          doctest::test_suite("core.concurrency")) {
  std::atomic<bool> reading{true};
  saferecl::test::thread_group readers;
  for (int r = 0; r < 2; ++r)
    readers.spawn([&] {
      while (reading.load()) {
        dom().lock();
        dom().lock();
        dom().unlock();
        dom().unlock();
      }
    });
  within_watchdog("8 x 10 concurrent rcu_synchronize calls", [](saferecl::test::watchdog& wd) {
    saferecl::test::run_in_parallel(8, [&](std::size_t) {
      for (int i = 0; i < 10; ++i) {
        sut::rcu_synchronize();
        wd.progressed();
      }
    });
  });
  reading = false;
  within_watchdog("the readers stopping", [&] { readers.join(); });
}

// RS-16: reader A, inside its region, starts thread B and waits for it; B's first action
// is a region of its own, while C waits in rcu_synchronize for A. B must not wait for C
// (e.g. by registering under a lock that C's grace period holds).
TEST_CASE("saferecl.rcu.domain.func/2 R29: a thread's first region does not wait for a grace period in progress" *
          doctest::test_suite("core.concurrency")) {
  region_holder reader_a(region_holder::lock_default, [] {
    first_region_of_a_new_thread();
    region_holder::unlock_default();
  });
  blocking_call sync_c("rcu_synchronize waiting for the reader", [] { sut::rcu_synchronize(); });
  CHECK(sync_c.still_blocked());
  reader_a.release();  // A now starts B and joins it, still inside its region
  reader_a.join();
  sync_c.join();
}

TEST_CASE("saferecl.rcu.domain.func/2 R29: many threads enter their first region while rcu_synchronize waits" *
          doctest::test_suite("core.concurrency")) {
  region_holder reader;
  blocking_call sync("rcu_synchronize waiting for the reader", [] { sut::rcu_synchronize(); });
  CHECK(sync.still_blocked());
  within_watchdog("eight new threads' first regions during a grace period", [] {
    saferecl::test::run_in_parallel(8, [](std::size_t) {
      dom().lock();
      dom().unlock();
    });
  });
  CHECK_FALSE(sync.returned());
  reader.release();
  sync.join();
}
