// <rcu>
//
// void rcu_obj_base<T, D>::retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept;
//   Mandates: T is an rcu-protectable type ([saferecl.rcu.general]/2: exactly one
//   rcu_obj_base<T, D> base, public and not virtual, and no base of type
//   rcu_obj_base<X, Y> for any other combination X, Y).
//
// TEST: saferecl.rcu.base/7 R14(d): retire is ill-formed when T has bases rcu_obj_base<T> with two deleter types
// TIER: strict
//
// Twice has rcu_obj_base<Twice, D1> and rcu_obj_base<Twice, D2>:
// each is unique, public and non-virtual, but the other one is a base of a forbidden kind.
// The call names one base explicitly, so lookup is unambiguous and only the Mandates can
// reject it. Strict, as the other cases of (d). The twin makes the same call on a class
// with only the D1 base.
#include <sut.hpp>

struct D1 {
  template <class T>
  void operator()(T* p) const noexcept {
    delete p;
  }
};
struct D2 {
  template <class T>
  void operator()(T* p) const noexcept {
    delete p;
  }
};

struct Once : sut::rcu_obj_base<Once, D1> {
  Once() noexcept {}
};
struct Twice : sut::rcu_obj_base<Twice, D1>, sut::rcu_obj_base<Twice, D2> {
  Twice() noexcept {}
};

void retire_them(Once* o, Twice* t) {
  static_cast<sut::rcu_obj_base<Once, D1>*>(o)->retire();
#if SAFERECL_MUST_NOT_COMPILE
  static_cast<sut::rcu_obj_base<Twice, D1>*>(t)->retire();
#endif
  static_cast<void>(t);
}
