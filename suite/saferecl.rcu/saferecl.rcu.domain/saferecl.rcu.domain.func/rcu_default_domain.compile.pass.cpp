// <rcu>
//
// rcu_domain& rcu_default_domain() noexcept;
//
// Relies on: unevaluated operands only.
#include "support/test.hpp"

#include <type_traits>

TEST_CASE("saferecl.rcu.domain.func/1 R7: rcu_default_domain() returns rcu_domain& and is noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_same_v<decltype(sut::rcu_default_domain()), sut::rcu_domain&>);
  static_assert(noexcept(sut::rcu_default_domain()));
}
