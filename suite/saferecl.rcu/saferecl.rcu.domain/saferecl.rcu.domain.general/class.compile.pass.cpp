// <rcu>
//
// class rcu_domain;   // declares no destructor: the implicit one is public and noexcept
//
// [derivation]/4: a library class is not final unless it is specified to be.
// [res.on.exception.handling]/3: destructors of library types do not throw.
//
// Relies on: type traits only; no domain is created. The destructor case is strict: no
// program can create or destroy an rcu_domain, so an implementation that declared the
// destructor non-public would be hard to call non-conforming.
#include "support/test.hpp"

#include <type_traits>

TEST_CASE("saferecl.rcu.domain.general derivation/4 G6: rcu_domain is not final" *
          doctest::test_suite("core.api")) {
  static_assert(!std::is_final_v<sut::rcu_domain>);
}

TEST_CASE("saferecl.rcu.domain.general res.on.exception.handling/3 G7: rcu_domain is nothrow-destructible" *
          doctest::test_suite("strict.api")) {
  static_assert(std::is_nothrow_destructible_v<sut::rcu_domain>);
}
