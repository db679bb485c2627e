// <rcu>
//
// rcu_domain(const rcu_domain&) = delete;
//
// TEST: saferecl.rcu.domain.general R19: copying an rcu_domain is ill-formed
// TIER: core
//
// The twin binds the same lvalue to a reference instead.
#include <sut.hpp>

void copy_the_default_domain() {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  sut::rcu_domain& same = dom;
  static_cast<void>(same);
#if SAFERECL_MUST_NOT_COMPILE
  sut::rcu_domain copy(dom);
  static_cast<void>(copy);
#endif
}
