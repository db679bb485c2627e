// <rcu>
//
// template<class T, class D = default_delete<T>>
// void rcu_obj_base<T, D>::retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept;
//   Effects: let x be *this cast to T; move-assigns d to deleter; schedules the evaluation
//   of deleter(addressof(x)) in dom.
// [saferecl.rcu.base]/4-5: D is callable with T*, Cpp17DefaultConstructible and
//   Cpp17MoveAssignable -- not necessarily copyable.
// [saferecl.rcu.domain.func]/4: rcu_barrier returns once every evaluation scheduled before
//   it has run.
//
// Custody of the deleter objects (support/custody.hpp counts every one the implementation
// makes): after rcu_barrier each object's deleter ran exactly once, with that object, and no
// deleter object was destroyed twice or invoked after its destruction (core); soon after,
// no deleter object is left (qoi: nothing says when a library drops one it made).
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
using saferecl::test::tracked;
using saferecl::test::within_watchdog;

namespace {

constexpr std::size_t kObjects = 64;

template <class D>
struct custody_object : sut::rcu_obj_base<custody_object<D>, D>, tracked {};

template <class D>
custody_set retire_objects() {
  custody_set set;
  for (std::size_t i = 0; i < kObjects; ++i) {
    auto* p = new custody_object<D>;
    set.add(p);
    p->retire(D());
  }
  return set;
}

void check_all_reclaimed_in_custody(const custody_set& set) {
  within_watchdog("rcu_barrier after retire", [] { sut::rcu_barrier(); });
  CHECK(set.reclaimed() == set.size());
  check_custody_of_the_reclaimed(set);
}

void check_nothing_left(const custody_set& set) {
  CHECK(barrier_until([] { return custody().alive() == 0; }));
  INFO("deleter objects left: ", custody().alive());
  CHECK(custody().alive() == 0);
  check_custody_of_the_reclaimed(set);
}

}  // namespace

TEST_CASE("saferecl.rcu.base/9 R16: custody: after rcu_barrier each stateful deleter ran once and none was destroyed twice" *
          doctest::test_suite("core.semantic")) {
  check_all_reclaimed_in_custody(retire_objects<counted_deleter>());
}

TEST_CASE("saferecl.rcu.base/4 R12: custody: after rcu_barrier each move-only owning deleter ran once and none was destroyed twice" *
          doctest::test_suite("core.semantic")) {
  check_all_reclaimed_in_custody(retire_objects<owning_deleter>());
}

TEST_CASE("saferecl.rcu.domain.func/4 R33: custody: objects retired by an exited thread are reclaimed once each by rcu_barrier" *
          doctest::test_suite("core.lifetime")) {
  custody_set set;
  within_watchdog("a thread retires and exits", [&] {
    std::thread([&] { set = retire_objects<owning_deleter>(); }).join();
  });
  check_all_reclaimed_in_custody(set);
}

TEST_CASE("saferecl.rcu.base/9 R16: qoi: custody: every deleter object made for retired objects is destroyed soon after rcu_barrier" *
          doctest::test_suite("qoi.semantic")) {
  check_nothing_left(retire_objects<counted_deleter>());
}

TEST_CASE("saferecl.rcu.base/4 R12: qoi: custody: every move-only owning deleter is destroyed soon after rcu_barrier" *
          doctest::test_suite("qoi.semantic")) {
  check_nothing_left(retire_objects<owning_deleter>());
}
