// <hazard_pointer>
//
// ~hazard_pointer();
//   If *this is not empty, destroys the hazard pointer owned by *this, thereby ending its
//   current protection epoch.
//
// Relies on: churn being the only portable way to provoke reclamation. That the ended
// epoch lets the object be reclaimed is checked in aggregate form by the qoi tier
// (reclamation.eventual); here only what must not happen is checked.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <utility>

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::published;

TEST_CASE("saferecl.hp.holder.ctor/3 H24: destroying an empty or a moved-from hazard_pointer releases nothing" *
          doctest::test_suite("core.semantic")) {
  published x(1);
  sut::hazard_pointer keeper;
  {
    sut::hazard_pointer moved_from = sut::make_hazard_pointer();
    keeper = std::move(moved_from);
    sut::hazard_pointer never_owned;
  }
  hp_object* p = keeper.protect(x.src);
  x.unlink_and_retire();
  // Had `moved_from` released the hazard pointer `keeper` owns, this holder could now be
  // handed the same one and clear the protection.
  sut::hazard_pointer next = sut::make_hazard_pointer();
  next.reset_protection();
  CHECK(intact_after_churn(*p));
  CHECK(p->value == 1);
}

TEST_CASE("saferecl.hp.holder.ctor/3 H24: destroying one holder does not end another holder's epoch on the same object" *
          doctest::test_suite("core.semantic")) {
  published x(2);
  sut::hazard_pointer survivor = sut::make_hazard_pointer();
  hp_object* p = survivor.protect(x.src);
  {
    sut::hazard_pointer doomed = sut::make_hazard_pointer();
    CHECK(doomed.protect(x.src) == p);
    x.unlink_and_retire();
  }
  CHECK(intact_after_churn(*p));
  CHECK(p->value == 2);
}
