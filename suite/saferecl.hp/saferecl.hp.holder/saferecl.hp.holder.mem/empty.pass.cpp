// <hazard_pointer>
//
// bool empty() const noexcept;
//   Returns: true if and only if *this is empty.
//
// Relies on: nothing beyond the holder's own state; no object is protected or retired.
#include "support/test.hpp"

#include <utility>

TEST_CASE("saferecl.hp.holder.mem/1 H26: empty() tells owning from empty through every state change" *
          doctest::test_suite("core.semantic")) {
  const sut::hazard_pointer default_constructed;
  CHECK(default_constructed.empty());

  sut::hazard_pointer a = sut::make_hazard_pointer();
  CHECK_FALSE(a.empty());

  sut::hazard_pointer b(std::move(a));
  CHECK(a.empty());
  CHECK_FALSE(b.empty());

  a = std::move(b);
  CHECK_FALSE(a.empty());
  CHECK(b.empty());

  a.swap(b);
  CHECK(a.empty());
  CHECK_FALSE(b.empty());

  b.reset_protection();  // unassociated is not empty
  CHECK_FALSE(b.empty());

  b = sut::hazard_pointer{};
  CHECK(b.empty());
}
