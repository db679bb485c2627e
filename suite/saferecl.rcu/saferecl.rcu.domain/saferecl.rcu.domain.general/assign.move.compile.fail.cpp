// <rcu>
//
// rcu_domain& operator=(const rcu_domain&) = delete;   // no move assignment is declared
//
// TEST: saferecl.rcu.domain.general R19: move-assigning an rcu_domain is ill-formed
// TIER: core
//
// With no move assignment declared, an rvalue selects the deleted copy assignment. The
// twin binds the same rvalue to a reference instead.
#include <sut.hpp>

#include <utility>

void assign(sut::rcu_domain& a, sut::rcu_domain& b) {
  sut::rcu_domain&& ref = std::move(b);
  static_cast<void>(ref);
#if SAFERECL_MUST_NOT_COMPILE
  a = std::move(b);
#endif
  static_cast<void>(a);
}
