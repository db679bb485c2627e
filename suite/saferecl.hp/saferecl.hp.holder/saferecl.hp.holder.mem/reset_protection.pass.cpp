// <hazard_pointer>
//
// template<class T> void reset_protection(const T* ptr) noexcept;
//   Effects: if ptr is null, equivalent to reset_protection(); otherwise associates the
//   hazard pointer owned by *this with *ptr, ending the current protection epoch.
// void reset_protection(nullptr_t = nullptr) noexcept;
//   Postconditions: the hazard pointer owned by *this is unassociated.
//
// Relies on: churn being the only portable way to provoke reclamation. The objects whose
// epochs these calls end are checked in aggregate form in the qoi tier
// (reclamation.eventual); here: the epochs they begin, and that the holder stays usable.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::published;

TEST_CASE("saferecl.hp.holder.mem/9 H32: reset_protection(T*) begins an epoch that protects the object" *
          doctest::test_suite("core.semantic")) {
  published x(1);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = x.src.load();  // the test owns x until it retires it: no validation needed
  h.reset_protection(p);
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));
}

TEST_CASE("saferecl.hp.holder.mem/9 H32: reset_protection(const T*) begins an epoch that protects the object" *
          doctest::test_suite("core.semantic")) {
  published x(2);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  const hp_object* p = x.src.load();
  h.reset_protection(p);
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));
}

TEST_CASE("saferecl.hp.holder.mem/9 H32: reset_protection to another object moves the protection to it" *
          doctest::test_suite("core.semantic")) {
  published x(3), y(4);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  h.protect(x.src);
  hp_object* q = y.src.load();
  h.reset_protection(q);
  y.unlink_and_retire();
  CHECK(intact_after_churn(*q));
}

// Each way of ending the association leaves a holder that is still not empty and can begin
// the next epoch.
template <class Reset>
void check_usable_after(Reset reset) {
  published x(5), y(6);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  h.protect(x.src);
  reset(h);
  CHECK_FALSE(h.empty());
  hp_object* q = h.protect(y.src);
  y.unlink_and_retire();
  CHECK(intact_after_churn(*q));
}

TEST_CASE("saferecl.hp.holder.mem/12 H33: reset_protection() leaves the holder unassociated and usable" *
          doctest::test_suite("core.semantic")) {
  check_usable_after([](sut::hazard_pointer& h) { h.reset_protection(); });
}

TEST_CASE("saferecl.hp.holder.mem/12 H33: reset_protection(nullptr) leaves the holder unassociated and usable" *
          doctest::test_suite("core.semantic")) {
  check_usable_after([](sut::hazard_pointer& h) { h.reset_protection(nullptr); });
}

TEST_CASE("saferecl.hp.holder.mem/9 H32: reset_protection with a null T* acts as reset_protection()" *
          doctest::test_suite("core.semantic")) {
  check_usable_after([](sut::hazard_pointer& h) { h.reset_protection(static_cast<hp_object*>(nullptr)); });
  check_usable_after([](sut::hazard_pointer& h) { h.reset_protection(static_cast<const hp_object*>(nullptr)); });
}

TEST_CASE("saferecl.hp.holder.mem/12 H33: a retired object stays protected until reset_protection ends its epoch" *
          doctest::test_suite("core.semantic")) {
  // Its eventual reclamation afterwards is the qoi tier's (reclamation.eventual).
  published x(7);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));
  CHECK(p->value == 7);
  h.reset_protection();
  CHECK_FALSE(h.empty());
}
