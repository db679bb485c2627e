// <rcu>
//
// void lock() noexcept;
//
// Relies on: unevaluated operands only; no region is opened.
#include "support/test.hpp"

#include <type_traits>
#include <utility>

TEST_CASE("saferecl.rcu.domain.members/1 R19: rcu_domain::lock() returns void and is noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_void_v<decltype(std::declval<sut::rcu_domain&>().lock())>);
  static_assert(noexcept(std::declval<sut::rcu_domain&>().lock()));
}
