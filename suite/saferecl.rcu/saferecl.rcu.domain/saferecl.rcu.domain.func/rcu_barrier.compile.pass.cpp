// <rcu>
//
// void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
//
// Relies on: unevaluated operands only; nothing blocks.
#include "support/test.hpp"

#include <type_traits>
#include <utility>

TEST_CASE("saferecl.rcu.domain.func/4 R7: rcu_barrier() and rcu_barrier(dom) return void and are noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_void_v<decltype(sut::rcu_barrier())>);
  static_assert(std::is_void_v<decltype(sut::rcu_barrier(std::declval<sut::rcu_domain&>()))>);
  static_assert(noexcept(sut::rcu_barrier()));
  static_assert(noexcept(sut::rcu_barrier(std::declval<sut::rcu_domain&>())));
}
