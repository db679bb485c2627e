// <hazard_pointer>
//
// void swap(hazard_pointer& other) noexcept;
//   Effects: swaps the hazard pointer ownership of this object with that of other.
//   [Note: the owned hazard pointers, if any, remain unchanged during the swap and continue
//   to be associated with the respective objects that they were protecting before the
//   swap, if any. No protection epochs are ended or initiated. -- end note]
//
// Relies on: churn being the only portable way to provoke reclamation; objects are retired
// while the swapped ownership is in place, and only non-reclamation is asserted.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::published;

TEST_CASE("saferecl.hp.holder.mem/14 H35: member swap exchanges ownership and keeps both epochs" *
          doctest::test_suite("core.semantic")) {
  published x(1), y(2);
  sut::hazard_pointer a = sut::make_hazard_pointer();
  sut::hazard_pointer b = sut::make_hazard_pointer();
  hp_object* p = a.protect(x.src);
  hp_object* q = b.protect(y.src);

  a.swap(b);
  x.unlink_and_retire();  // retired during the swapped ownership
  y.unlink_and_retire();
  CHECK(intact_after_churn(*p));
  CHECK(intact_after_churn(*q));

  // `a` now owns the hazard pointer that protects y: ending its epoch leaves x protected.
  a.reset_protection();
  CHECK(intact_after_churn(*p));
  CHECK(p->value == 1);
}

TEST_CASE("saferecl.hp.holder.mem/14 H35: member swap with an empty object exchanges emptiness and keeps the epoch" *
          doctest::test_suite("core.semantic")) {
  published x(3);
  sut::hazard_pointer owner = sut::make_hazard_pointer();
  sut::hazard_pointer empty;
  hp_object* p = owner.protect(x.src);

  owner.swap(empty);
  CHECK(owner.empty());
  CHECK_FALSE(empty.empty());
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));
}

TEST_CASE("saferecl.hp.holder.mem/14 H35: swapping a hazard_pointer with itself changes nothing" *
          doctest::test_suite("core.semantic")) {
  published x(4);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();

  h.swap(h);
  CHECK_FALSE(h.empty());
  CHECK(intact_after_churn(*p));

  sut::hazard_pointer empty;
  empty.swap(empty);
  CHECK(empty.empty());
}
