// <rcu>
//
// rcu_domain(const rcu_domain&) = delete;
//
// TEST: saferecl.rcu.domain.general R19: copying an rcu_domain is ill-formed
// TIER: core
#include <sut.hpp>

void copy_the_default_domain() {
  sut::rcu_domain& dom = sut::rcu_default_domain();
#if SAFERECL_MUST_NOT_COMPILE
  sut::rcu_domain copy(dom);
#endif
  (void)dom;
}
