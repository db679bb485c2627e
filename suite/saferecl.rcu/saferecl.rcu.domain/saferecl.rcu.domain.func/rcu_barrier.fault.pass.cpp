// <rcu>
//
// void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
//
// Noexcept and with a guarantee to keep: with every allocation failing, it must neither
// terminate nor return before the pending deleters have run (FI-03). QoI. Relies on: the
// objects being retired in the child, after the fork: retired before it, they could be in
// the hands of a thread that runs deleters (a callback worker, an executor), and the child
// has no copy of that thread, so they would be lost there by a conforming design (NB-R50).
#include "support/rcu_fault.hpp"
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

using saferecl::test::objects;
using saferecl::test::plain_object;
using saferecl::test::quarantine_deleter;
using saferecl::test::rcu_object;

TEST_CASE("saferecl.rcu.domain.func/4 FI-03: rcu_barrier with every allocation failing still runs every pending deleter" *
          doctest::test_suite("qoi.fault")) {
  auto* x = new rcu_object;
  auto* y = new plain_object;
  const auto ids = {x->id, y->id};
  const auto outcome = saferecl::test::with_allocations_failing(
      [&] {
        x->retire();
        sut::rcu_retire(y, quarantine_deleter{});
      },
      [] { sut::rcu_barrier(); },
      [&] {
        for (auto id : ids)
          if (objects().reclaim_count(id) != 1) return false;
        return true;
      });
  delete x;  // the parent's copies were never retired
  delete y;
  INFO("child output: " << outcome.output);
  CHECK(outcome.exit_code == saferecl::test::fault::kCompleted);
}
