// <hazard_pointer>
//
// hazard_pointer(hazard_pointer&& other) noexcept;
//   Postconditions: if other is empty, *this is empty. Otherwise *this owns the hazard
//   pointer other owned, and other is empty.
//
// Relies on: churn (retiring many unprotected objects) being the only portable way to
// provoke reclamation; only non-reclamation of the protected object is asserted.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <utility>

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::published;

TEST_CASE("saferecl.hp.holder.ctor/2 H23: moving from an empty hazard_pointer gives an empty one" *
          doctest::test_suite("core.semantic")) {
  sut::hazard_pointer source;
  sut::hazard_pointer target(std::move(source));
  CHECK(target.empty());
  CHECK(source.empty());
}

TEST_CASE("saferecl.hp.holder.ctor/2 H23: the moved-to object owns the hazard pointer and keeps its protection" *
          doctest::test_suite("core.semantic")) {
  published x(1);
  sut::hazard_pointer source = sut::make_hazard_pointer();
  hp_object* p = source.protect(x.src);

  sut::hazard_pointer target(std::move(source));
  CHECK(source.empty());
  CHECK_FALSE(target.empty());

  x.unlink_and_retire();  // retired while `target` owns the epoch `source` began
  CHECK(intact_after_churn(*p));
  CHECK(p->value == 1);
}

TEST_CASE("saferecl.hp.holder.ctor/2 H23: moving a hazard pointer does not end an epoch that protects a retired object" *
          doctest::test_suite("core.semantic")) {
  published x(2);
  sut::hazard_pointer source = sut::make_hazard_pointer();
  hp_object* p = source.protect(x.src);
  x.unlink_and_retire();

  sut::hazard_pointer target(std::move(source));
  CHECK(intact_after_churn(*p));
  CHECK(p->value == 2);
}
