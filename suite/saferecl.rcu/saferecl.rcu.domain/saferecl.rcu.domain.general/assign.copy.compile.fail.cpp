// <rcu>
//
// rcu_domain& operator=(const rcu_domain&) = delete;
//
// TEST: saferecl.rcu.domain.general R19: copy-assigning an rcu_domain is ill-formed
// TIER: core
//
// The twin takes the same references without assigning.
#include <sut.hpp>

void assign(sut::rcu_domain& a, const sut::rcu_domain& b) {
  sut::rcu_domain& same = a;
  static_cast<void>(same);
#if SAFERECL_MUST_NOT_COMPILE
  a = b;
#endif
  static_cast<void>(b);
}
