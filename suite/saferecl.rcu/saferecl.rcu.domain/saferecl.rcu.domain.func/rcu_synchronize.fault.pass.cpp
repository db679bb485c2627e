// <rcu>
//
// void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
//
// Noexcept: whatever it allocates (wait queues, per-call records), a failure must not end
// the program through std::terminate (FI-03). QoI. Relies on: no region being open in the
// forked child, so the call has nothing to wait for.
#include "support/rcu_fault.hpp"
#include "support/test.hpp"

TEST_CASE("saferecl.rcu.domain.func/2 FI-03: rcu_synchronize with every allocation failing does not terminate" *
          doctest::test_suite("qoi.fault")) {
  const auto outcome = saferecl::test::with_allocations_failing(
      [] {
        sut::rcu_synchronize();
        sut::rcu_synchronize();
      },
      [] { return true; });
  INFO("child output: " << outcome.output);
  CHECK(outcome.exit_code == saferecl::test::fault::kCompleted);
}
