// <rcu>
//
// void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
//
// Relies on: unevaluated operands only; nothing blocks.
#include "support/test.hpp"

#include <type_traits>
#include <utility>

TEST_CASE("saferecl.rcu.domain.func/2 R7: rcu_synchronize() and rcu_synchronize(dom) return void and are noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_void_v<decltype(sut::rcu_synchronize())>);
  static_assert(std::is_void_v<decltype(sut::rcu_synchronize(std::declval<sut::rcu_domain&>()))>);
  static_assert(noexcept(sut::rcu_synchronize()));
  static_assert(noexcept(sut::rcu_synchronize(std::declval<sut::rcu_domain&>())));
}
