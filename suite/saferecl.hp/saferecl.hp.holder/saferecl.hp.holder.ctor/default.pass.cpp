// <hazard_pointer>
//
// hazard_pointer() noexcept;
//   Postconditions: *this is empty.
//
// Relies on: nothing but the declaration; no hazard pointer is created.
#include "support/test.hpp"

#include <type_traits>

TEST_CASE("saferecl.hp.holder.ctor/1 H22: a default-constructed hazard_pointer is empty" *
          doctest::test_suite("core.semantic")) {
  static_assert(std::is_nothrow_default_constructible_v<sut::hazard_pointer>);
  sut::hazard_pointer h;
  CHECK(h.empty());
}

TEST_CASE("saferecl.hp.holder.ctor/1 H21: make_hazard_pointer() is not empty, a default one is" *
          doctest::test_suite("core.semantic")) {
  sut::hazard_pointer owning = sut::make_hazard_pointer();
  sut::hazard_pointer empty;
  CHECK_FALSE(owning.empty());
  CHECK(empty.empty());
}
