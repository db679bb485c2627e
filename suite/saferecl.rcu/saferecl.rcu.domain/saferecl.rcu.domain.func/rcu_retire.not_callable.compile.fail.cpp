// <rcu>
//
// template<class T, class D = default_delete<T>>
//   void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain());
//   Mandates: is_move_constructible_v<D> is true and the expression d(p) is well-formed.
//
// TEST: saferecl.rcu.domain.func/6 R36(b): rcu_retire with a deleter that cannot be called with a T pointer is ill-formed
// TIER: core
//
// T = double and the deleter takes int*; the deleter is movable, so d(p) is the only
// problem. The twin makes the same call with T = int.
#include <sut.hpp>

void retire(int* i, double* d) {
  sut::rcu_retire(i, [](int* p) noexcept { delete p; });
#if SAFERECL_MUST_NOT_COMPILE
  sut::rcu_retire(d, [](int* p) noexcept { delete p; });
#endif
  static_cast<void>(d);
}
