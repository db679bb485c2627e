// <rcu>
//
// rcu_domain(const rcu_domain&) = delete;   // no move constructor is declared
//
// TEST: saferecl.rcu.domain.general R19: move-constructing an rcu_domain is ill-formed
// TIER: core
//
// With no move constructor declared, an rvalue selects the deleted copy constructor. The
// twin binds the same rvalue to a reference instead.
#include <sut.hpp>

#include <utility>

void move_the_default_domain() {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  sut::rcu_domain&& ref = std::move(dom);
  static_cast<void>(ref);
#if SAFERECL_MUST_NOT_COMPILE
  sut::rcu_domain moved(std::move(dom));
  static_cast<void>(moved);
#endif
}
