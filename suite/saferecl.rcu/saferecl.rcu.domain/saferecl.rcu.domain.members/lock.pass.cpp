// <rcu>
//
// void lock() noexcept;
//   Effects: opens a region of RCU protection.
//   Remarks: calls to lock do not introduce a data race ([intro.races]) involving *this.
// void unlock() noexcept;   (the same remark)
//
// Unlike other non-const member functions, lock and unlock may be called on the one
// domain object by many threads at once. Relies on: ThreadSanitizer to report a data race
// inside the implementation (advisory, requirements.md §2.9/7); a synchronizer running
// meanwhile so that the readers' state is also read concurrently.
#include "support/test.hpp"

#include <atomic>
#include <cstddef>

using saferecl::test::within_watchdog;

TEST_CASE("saferecl.rcu.domain.members/2 R24: eight threads lock and unlock the one domain concurrently without a data race" *
          doctest::test_suite("core.concurrency")) {
  constexpr int kRegionsPerThread = 2000;
  std::atomic<bool> reading{true};
  saferecl::test::thread_group synchronizer;
  synchronizer.spawn([&] {
    while (reading.load()) sut::rcu_synchronize();
  });
  within_watchdog("eight threads locking and unlocking", [] {
    saferecl::test::run_in_parallel(8, [](std::size_t t) {
      sut::rcu_domain& dom = sut::rcu_default_domain();
      for (int i = 0; i < kRegionsPerThread; ++i) {
        dom.lock();
        if ((i + t) % 3 == 0 && dom.try_lock()) dom.unlock();
        dom.unlock();
      }
    });
  });
  reading = false;
  within_watchdog("the synchronizer stopping", [&] { synchronizer.join(); });
}
