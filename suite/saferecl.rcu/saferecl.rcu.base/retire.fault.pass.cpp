// <rcu>
//
// void rcu_obj_base<T, D>::retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept;
//
// Noexcept, and it cannot report failure: an implementation that allocates in retire must
// absorb the failure and still schedule the deleter (FI-03). QoI, since whether retire may
// allocate at all is not specified. Relies on: rcu_barrier, after disarming, as the proof
// that the deleter was scheduled.
#include "support/rcu_fault.hpp"
#include "support/test.hpp"

using saferecl::test::objects;
using saferecl::test::rcu_object;

TEST_CASE("saferecl.rcu.base/9 FI-03: retire with every allocation failing neither terminates nor loses the object" *
          doctest::test_suite("qoi.fault")) {
  auto* x = new rcu_object;  // before the fork: the child retires its copy
  const auto id = x->id;
  const auto outcome = saferecl::test::with_allocations_failing([x] { x->retire(); }, [id] {
    sut::rcu_barrier();
    return objects().reclaim_count(id) == 1;
  });
  delete x;  // the parent's copy was never retired
  INFO("child output: " << outcome.output);
  CHECK(outcome.exit_code == saferecl::test::fault::kCompleted);
}
