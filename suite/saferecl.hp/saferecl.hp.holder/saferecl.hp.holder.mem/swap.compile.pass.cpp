// <hazard_pointer>
//
// void swap(hazard_pointer& other) noexcept;
//
// Relies on: unevaluated operands only.
#include "support/test.hpp"

#include <type_traits>
#include <utility>

TEST_CASE("saferecl.hp.holder.mem/14 H20: member swap returns void and is noexcept" *
          doctest::test_suite("core.api")) {
  using H = sut::hazard_pointer;
  static_assert(std::is_void_v<decltype(std::declval<H&>().swap(std::declval<H&>()))>);
  static_assert(noexcept(std::declval<H&>().swap(std::declval<H&>())));
}
