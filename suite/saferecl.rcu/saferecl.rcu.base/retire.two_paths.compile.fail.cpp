// <rcu>
//
// void rcu_obj_base<T, D>::retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept;
//   Mandates: T is an rcu-protectable type ([saferecl.rcu.general]/2: exactly one
//   rcu_obj_base<T, D> base, public and not virtual, and no other such base).
//
// TEST: saferecl.rcu.base/7 R14(c): retire is ill-formed when T has two rcu_obj_base<T> subobjects
// TIER: core
//
// Both paths are public and non-virtual. The call names one of them explicitly (through
// the intermediate class Left), so member lookup is unambiguous and only the Mandates can
// reject it. The twin makes the same call through an intermediate class when there is only
// one path.
#include <sut.hpp>

// One path: Single -> OnePath -> rcu_obj_base<Single>.
struct Single;
struct OnePath : sut::rcu_obj_base<Single> {
  OnePath() noexcept {}
};
struct Single : OnePath {
  Single() noexcept {}
};

// Two paths: Twice -> Left -> base, Twice -> Right -> base.
struct Twice;
struct Left : sut::rcu_obj_base<Twice> {
  Left() noexcept {}
};
struct Right : sut::rcu_obj_base<Twice> {
  Right() noexcept {}
};
struct Twice : Left, Right {
  Twice() noexcept {}
};

void retire_them(Single* s, Twice* t) {
  static_cast<OnePath*>(s)->retire();
#if SAFERECL_MUST_NOT_COMPILE
  static_cast<Left*>(t)->retire();
#endif
  static_cast<void>(t);
}
