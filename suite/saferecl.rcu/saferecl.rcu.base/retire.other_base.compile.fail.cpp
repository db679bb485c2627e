// <rcu>
//
// void rcu_obj_base<T, D>::retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept;
//   Mandates: T is an rcu-protectable type ([saferecl.rcu.general]/2: exactly one
//   rcu_obj_base<T, D> base, public and not virtual, and no base of type
//   rcu_obj_base<X, Y> for any other combination X, Y).
//
// TEST: saferecl.rcu.base/7 R14(d): retire is ill-formed when T also has an unrelated rcu_obj_base<Other> base
// TIER: strict
//
// Both is derived from rcu_obj_base<Both> and, through Other, from
// rcu_obj_base<Other>. The call names Both's own base explicitly, so lookup is
// unambiguous and only the Mandates can reject it. Strict: a diagnosis needs a search of
// every base class, which plausible implementations may not do. The twin makes the same
// call on a class whose Other is not rcu-protectable.
#include <sut.hpp>

struct Other : sut::rcu_obj_base<Other> {
  Other() noexcept {}
};
struct PlainOther {
  PlainOther() noexcept {}
};

struct Both : sut::rcu_obj_base<Both>, Other {
  Both() noexcept {}
};
struct Fine : sut::rcu_obj_base<Fine>, PlainOther {
  Fine() noexcept {}
};

void retire_them(Fine* f, Both* b) {
  static_cast<sut::rcu_obj_base<Fine>*>(f)->retire();
#if SAFERECL_MUST_NOT_COMPILE
  static_cast<sut::rcu_obj_base<Both>*>(b)->retire();
#endif
  static_cast<void>(b);
}
