// <rcu>
//
// bool try_lock() noexcept;
//
// Relies on: unevaluated operands only; no region is opened.
#include "support/test.hpp"

#include <type_traits>
#include <utility>

TEST_CASE("saferecl.rcu.domain.members/3 R19: rcu_domain::try_lock() returns bool and is noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_same_v<decltype(std::declval<sut::rcu_domain&>().try_lock()), bool>);
  static_assert(noexcept(std::declval<sut::rcu_domain&>().try_lock()));
}
