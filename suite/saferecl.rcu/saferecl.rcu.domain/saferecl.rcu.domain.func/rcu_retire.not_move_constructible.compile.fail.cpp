// <rcu>
//
// template<class T, class D = default_delete<T>>
//   void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain());
//   Mandates: is_move_constructible_v<D> is true and the expression d(p) is well-formed.
//
// TEST: saferecl.rcu.domain.func/6 R36(a): rcu_retire with a deleter that is not move-constructible is ill-formed
// TIER: core
//
// The deleter is passed as a prvalue, which initializes the parameter d without a move
// (guaranteed copy elision), so the call itself is fine: only the Mandates can reject it.
// The twin makes the same call with a deleter that differs only in being movable.
#include <sut.hpp>

struct Node {
  Node() noexcept {}
};

struct Movable {
  Movable() noexcept {}
  Movable(Movable&&) noexcept {}
  void operator()(Node* p) const noexcept { delete p; }
};

struct NonMovable {
  NonMovable() noexcept {}
  NonMovable(NonMovable&&) = delete;
  void operator()(Node* p) const noexcept { delete p; }
};

void retire(Node* p, Node* q) {
  sut::rcu_retire(p, Movable{});
#if SAFERECL_MUST_NOT_COMPILE
  sut::rcu_retire(q, NonMovable{});
#endif
  static_cast<void>(q);
}
