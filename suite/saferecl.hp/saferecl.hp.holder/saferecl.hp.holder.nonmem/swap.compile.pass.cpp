// <hazard_pointer>
//
// void swap(hazard_pointer& a, hazard_pointer& b) noexcept;
//   Effects: equivalent to a.swap(b).
//
// Relies on: unevaluated operands only. The swap the standard declares is found by an
// unqualified call after `using std::swap;`, by a qualified call, and by std::ranges::swap.
#include "support/test.hpp"

#include <concepts>
#include <type_traits>
#include <utility>

namespace {
using H = sut::hazard_pointer;

constexpr bool unqualified_swap_is_noexcept() {
  using std::swap;
  return noexcept(swap(std::declval<H&>(), std::declval<H&>())) &&
         std::is_void_v<decltype(swap(std::declval<H&>(), std::declval<H&>()))>;
}
}  // namespace

TEST_CASE("saferecl.hp.holder.nonmem/4 H37: non-member swap returns void and is noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_void_v<decltype(sut::swap(std::declval<H&>(), std::declval<H&>()))>);
  static_assert(noexcept(sut::swap(std::declval<H&>(), std::declval<H&>())));
  static_assert(unqualified_swap_is_noexcept());
}

TEST_CASE("saferecl.hp.holder.nonmem/4 H37: hazard_pointer is nothrow-swappable and works with ranges::swap" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_swappable_v<H>);
  static_assert(std::is_nothrow_swappable_v<H>);
  static_assert(std::swappable<H>);
  static_assert(noexcept(std::ranges::swap(std::declval<H&>(), std::declval<H&>())));
  // Evaluated on empty objects: owns nothing, allocates nothing.
  H a;
  H b;
  std::ranges::swap(a, b);
  using std::swap;
  swap(a, b);
  CHECK(a.empty());
  CHECK(b.empty());
}
