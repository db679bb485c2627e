// <rcu>
//
// class rcu_domain {
// public:
//   rcu_domain(const rcu_domain&) = delete;
//   rcu_domain& operator=(const rcu_domain&) = delete;
// };
//
// No move operations are declared, so the deleted copy operations are also what a move
// selects: rcu_domain is neither copyable nor movable. No other constructor is declared,
// so a program cannot create a domain; rcu_default_domain() is the only source (R20,
// strict: [member.functions] latitude might be argued for an extra constructor).
//
// Relies on: type traits only.
#include "support/test.hpp"

#include <type_traits>

using sut::rcu_domain;

TEST_CASE("saferecl.rcu.domain.general R19: rcu_domain is neither copyable nor movable" *
          doctest::test_suite("core.api")) {
  static_assert(!std::is_copy_constructible_v<rcu_domain>);
  static_assert(!std::is_constructible_v<rcu_domain, rcu_domain&>);
  static_assert(!std::is_move_constructible_v<rcu_domain>);
  static_assert(!std::is_copy_assignable_v<rcu_domain>);
  static_assert(!std::is_assignable_v<rcu_domain&, rcu_domain&>);
  static_assert(!std::is_move_assignable_v<rcu_domain>);
}

TEST_CASE("saferecl.rcu.domain.general R20: rcu_domain is not default-constructible" *
          doctest::test_suite("strict.api")) {
  static_assert(!std::is_default_constructible_v<rcu_domain>);
}
