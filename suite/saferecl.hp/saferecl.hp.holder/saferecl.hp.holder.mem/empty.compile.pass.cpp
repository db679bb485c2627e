// <hazard_pointer>
//
// bool empty() const noexcept;
//
// Relies on: unevaluated operands only. [[nodiscard]] is neither required nor forbidden
// (P2422R1 removed it from the draft), so it is not tested either way.
#include "support/test.hpp"

#include <type_traits>
#include <utility>

TEST_CASE("saferecl.hp.holder.mem/1 H20: empty() is const and noexcept and returns bool" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_same_v<decltype(std::declval<const sut::hazard_pointer&>().empty()), bool>);
  static_assert(std::is_same_v<decltype(std::declval<sut::hazard_pointer&>().empty()), bool>);
  static_assert(noexcept(std::declval<const sut::hazard_pointer&>().empty()));
}
