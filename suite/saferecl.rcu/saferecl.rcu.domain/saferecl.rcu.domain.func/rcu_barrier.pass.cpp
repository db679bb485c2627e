// <rcu>
//
// void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: may evaluate any scheduled evaluations in dom; for any evaluation that
//   happens before the call and schedules an evaluation E in dom, blocks until E has been
//   evaluated.
//
// Relies on: rcu_barrier being the one call that proves deleters ran (never
// rcu_synchronize), and on no region being open in this thread.
#include "support/test.hpp"

#include <vector>

using saferecl::test::objects;
using saferecl::test::rcu_object;
using saferecl::test::within_watchdog;

TEST_CASE("saferecl.rcu.domain.func/4 R33: after rcu_barrier every earlier retire has run once" *
          doctest::test_suite("core.semantic")) {
  std::vector<saferecl::test::object_log::id_t> ids;
  for (int i = 0; i < 100; ++i) {
    auto* p = new rcu_object(i);
    ids.push_back(p->id);
    p->retire();
  }
  within_watchdog("rcu_barrier with 100 pending deleters", [] { sut::rcu_barrier(); });
  for (auto id : ids) CHECK(objects().reclaim_count(id) == 1);
}

TEST_CASE("saferecl.rcu.domain.func/4 R33: rcu_barrier with nothing scheduled returns" *
          doctest::test_suite("core.semantic")) {
  within_watchdog("rcu_barrier with nothing pending", [] {
    sut::rcu_barrier();
    sut::rcu_barrier(sut::rcu_default_domain());
  });
}
