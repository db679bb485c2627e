// <hazard_pointer>
//
// template<class T, class D = default_delete<T>>
// void hazard_pointer_obj_base<T, D>::retire(D d = D()) noexcept;
//   Effects: move-assigns d to deleter, thereby setting it as the deleter of x, then
//   retires x. May reclaim possibly-reclaimable objects.
//   ([saferecl.hp.general]/5: reclaiming x invokes its deleter with a pointer to x.)
//
// Custody of the deleter objects (support/custody.hpp counts every one the implementation
// makes): each reclaimed object's deleter ran exactly once, with that object; no deleter
// object was destroyed twice or invoked after its destruction (core, checked on whatever
// churn reclaimed); and once churn has reclaimed every object, no deleter object is left
// (qoi: the bound is on how many objects stay unreclaimed, never which, and nothing says
// when a library drops a deleter it made).
//
// Relies on: churn being the only portable way to provoke reclamation (churn objects use
// the uncounted quarantine_deleter, so every counted invocation is one of these objects).
#include "support/test.hpp"
#include "support/custody.hpp"
#include "support/hp_checks.hpp"

#include <cstddef>
#include <thread>

using saferecl::test::churn;
using saferecl::test::churn_until;
using saferecl::test::counted_deleter;
using saferecl::test::check_custody_of_the_reclaimed;
using saferecl::test::custody;
using saferecl::test::custody_set;
using saferecl::test::owning_deleter;
using saferecl::test::tracked;

namespace {

constexpr std::size_t kObjects = 64;

template <class D>
struct custody_object : sut::hazard_pointer_obj_base<custody_object<D>, D>, tracked {};

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

template <class D>
void check_core_custody() {
  const custody_set set = retire_objects<D>();
  churn();
  check_custody_of_the_reclaimed(set);
  WARN_MESSAGE(set.reclaimed() > 0, "nothing was reclaimed under churn: the checks were vacuous");
}

// Every object reclaimed under churn, and then no deleter object left.
void check_nothing_left(const custody_set& set) {
  CHECK(churn_until([&] { return set.reclaimed() == kObjects && custody().alive() == 0; }));
  INFO("deleter objects left: ", custody().alive());
  CHECK(custody().alive() == 0);
  check_custody_of_the_reclaimed(set);
}

}  // namespace

TEST_CASE("saferecl.hp.base/7 H18: custody: a reclaimed object's stateful deleter runs once and no deleter object is destroyed twice" *
          doctest::test_suite("core.semantic")) {
  check_core_custody<counted_deleter>();
}

TEST_CASE("saferecl.hp.base/7 H14: custody: a reclaimed object's move-only owning deleter runs once and is destroyed at most once" *
          doctest::test_suite("core.semantic")) {
  check_core_custody<owning_deleter>();
}

TEST_CASE("saferecl.hp.base/7 H18: qoi: custody: every deleter object made for retired objects is destroyed once churn reclaimed them" *
          doctest::test_suite("qoi.semantic")) {
  check_nothing_left(retire_objects<counted_deleter>());
}

TEST_CASE("saferecl.hp.base/7 H14: qoi: custody: every move-only owning deleter is destroyed once churn reclaimed its object" *
          doctest::test_suite("qoi.semantic")) {
  check_nothing_left(retire_objects<owning_deleter>());
}

TEST_CASE("saferecl.hp.general/7 H38: qoi: custody: objects retired by an exited thread are reclaimed once each and their deleters destroyed" *
          doctest::test_suite("qoi.lifetime")) {
  custody_set set;
  saferecl::test::within_watchdog("a thread retires and exits", [&] {
    std::thread([&] { set = retire_objects<owning_deleter>(); }).join();
  });
  check_nothing_left(set);
}
