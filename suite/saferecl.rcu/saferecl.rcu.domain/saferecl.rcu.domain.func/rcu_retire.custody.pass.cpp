// <rcu>
//
// template<class T, class D = default_delete<T>>
//   void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain());
//   Effects: may allocate memory; move-initializes an object d1 of type D from d; schedules
//   the evaluation of d1(p) in the domain dom; may evaluate scheduled evaluations in dom.
// [saferecl.rcu.domain.func]/4: rcu_barrier returns once every evaluation scheduled before
//   it has run.
//
// Custody of the deleter objects (support/custody.hpp counts every one the implementation
// makes, d1 and any copy or move of it included): after rcu_barrier each object's deleter
// ran exactly once, with that object, and no deleter object was destroyed twice or invoked
// after its destruction (core); soon after, no deleter object is left (qoi: nothing says
// when a library destroys d1).
//
// Relies on: rcu_barrier as the proof that the deleters ran; no region open in this thread.
#include "support/test.hpp"
#include "support/custody.hpp"
#include "support/rcu_objects.hpp"

#include <cstddef>
#include <thread>

using saferecl::test::barrier_until;
using saferecl::test::check_custody_of_the_reclaimed;
using saferecl::test::counted_deleter;
using saferecl::test::custody;
using saferecl::test::custody_set;
using saferecl::test::owning_deleter;
using saferecl::test::plain_object;
using saferecl::test::within_watchdog;

namespace {

constexpr std::size_t kObjects = 64;

// Retires kObjects plain objects, each with the deleter `make()` returns.
template <class MakeDeleter>
custody_set retire_objects(MakeDeleter make) {
  custody_set set;
  for (std::size_t i = 0; i < kObjects; ++i) {
    auto* p = new plain_object;
    set.add(p);
    sut::rcu_retire(p, make());
  }
  return set;
}

void check_all_reclaimed_in_custody(const custody_set& set) {
  within_watchdog("rcu_barrier after rcu_retire", [] { sut::rcu_barrier(); });
  CHECK(set.reclaimed() == set.size());
  check_custody_of_the_reclaimed(set);
}

void check_nothing_left(const custody_set& set) {
  CHECK(barrier_until([] { return custody().alive() == 0; }));
  INFO("deleter objects left: ", custody().alive());
  CHECK(custody().alive() == 0);
  check_custody_of_the_reclaimed(set);
}

owning_deleter owning() { return owning_deleter(); }

// A move-only lambda with no default constructor, owning a counted deleter.
auto owning_lambda() {
  return [d = owning_deleter()](plain_object* p) { d(p); };
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/8 R38: custody: after rcu_barrier each copyable deleter d1 ran once and none was destroyed twice" *
          doctest::test_suite("core.semantic")) {
  check_all_reclaimed_in_custody(retire_objects([] { return counted_deleter(); }));
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: custody: after rcu_barrier each move-only owning deleter d1 ran once and none was destroyed twice" *
          doctest::test_suite("core.semantic")) {
  check_all_reclaimed_in_custody(retire_objects(owning));
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: custody: after rcu_barrier each move-only lambda owning a deleter ran once and none was destroyed twice" *
          doctest::test_suite("core.semantic")) {
  check_all_reclaimed_in_custody(retire_objects(owning_lambda));
}

TEST_CASE("saferecl.rcu.domain.func/4 R33: custody: objects an exited thread passed to rcu_retire are reclaimed once each by rcu_barrier" *
          doctest::test_suite("core.lifetime")) {
  custody_set set;
  within_watchdog("a thread retires and exits", [&] {
    std::thread([&] { set = retire_objects(owning); }).join();
  });
  check_all_reclaimed_in_custody(set);
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: qoi: custody: every copyable deleter made by rcu_retire is destroyed soon after rcu_barrier" *
          doctest::test_suite("qoi.semantic")) {
  check_nothing_left(retire_objects([] { return counted_deleter(); }));
}

TEST_CASE("saferecl.rcu.domain.func/8 R38: qoi: custody: every move-only owning deleter made by rcu_retire is destroyed soon after rcu_barrier" *
          doctest::test_suite("qoi.semantic")) {
  check_nothing_left(retire_objects(owning));
}
