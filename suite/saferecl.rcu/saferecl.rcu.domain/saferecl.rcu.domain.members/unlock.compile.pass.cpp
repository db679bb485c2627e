// <rcu>
//
// void unlock() noexcept;
//
// Relies on: unevaluated operands only; no region is closed (an unmatched unlock is
// undefined).
#include "support/test.hpp"

#include <type_traits>
#include <utility>

TEST_CASE("saferecl.rcu.domain.members/6 R19: rcu_domain::unlock() returns void and is noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_void_v<decltype(std::declval<sut::rcu_domain&>().unlock())>);
  static_assert(noexcept(std::declval<sut::rcu_domain&>().unlock()));
}
