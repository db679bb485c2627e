// <rcu>
//
// void rcu_obj_base<T, D>::retire(D d = D(), rcu_domain& dom = rcu_default_domain()) noexcept;
//   Mandates: T is an rcu-protectable type ([saferecl.rcu.general]/2: exactly one
//   rcu_obj_base<T, D> base, public and not virtual, and no other such base).
//
// TEST: saferecl.rcu.base/7 R14(a): retire is ill-formed when the base is protected
// TIER: core
//
// A member of T calls this->retire(), which is accessible there, so the Mandates is the
// only reason to reject it. The twin makes the same call through a public base.
#include <sut.hpp>

struct Public : sut::rcu_obj_base<Public> {
  Public() noexcept {}
  void retire_self() noexcept { this->retire(); }
};

struct Protected : protected sut::rcu_obj_base<Protected> {
  Protected() noexcept {}
#if SAFERECL_MUST_NOT_COMPILE
  void retire_self() noexcept { this->retire(); }
#endif
};
