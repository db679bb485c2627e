// <rcu>
//
// void lock() noexcept;      bool try_lock() noexcept;      void unlock() noexcept;
//
// Noexcept: if a thread's first lock sets up per-thread state and that setup allocates, an
// allocation failure must be absorbed, not end the program through std::terminate
// (FI-03; folly made its lazily allocating lock() noexcept and terminated). Robustness, so
// QoI. Relies on: the forked child's main thread never having used the facility before.
#include "support/rcu_fault.hpp"
#include "support/test.hpp"

TEST_CASE("saferecl.rcu.domain.members/1 FI-03: a thread's first lock, try_lock and unlock survive allocation failure" *
          doctest::test_suite("qoi.fault")) {
  const auto outcome = saferecl::test::with_allocations_failing(
      [] {
        sut::rcu_domain& dom = sut::rcu_default_domain();
        dom.lock();
        (void)dom.try_lock();
        dom.unlock();
        dom.unlock();
      },
      [] {
        sut::rcu_synchronize();  // the regions closed: nothing left to wait for
        return true;
      });
  INFO("child output: " << outcome.output);
  CHECK(outcome.exit_code == saferecl::test::fault::kCompleted);
}
