// <hazard_pointer>
//
// void hazard_pointer_obj_base<T, D>::retire(D d = D()) noexcept;
//   Mandates: T is a hazard-protectable type ([saferecl.hp.general]/2: exactly one
//   hazard_pointer_obj_base<T, D> base, public and not virtual, and no other such base).
//
// TEST: saferecl.hp.base/5 H13(a): retire is ill-formed when the base is private
// TIER: core
//
// A member of T calls this->retire(), which is accessible there, so the Mandates is the
// only reason to reject it. The twin makes the same call through a public base.
#include <sut.hpp>

struct Public : sut::hazard_pointer_obj_base<Public> {
  Public() noexcept {}
  void retire_self() noexcept { this->retire(); }
};

struct Private : private sut::hazard_pointer_obj_base<Private> {
  Private() noexcept {}
#if SAFERECL_MUST_NOT_COMPILE
  void retire_self() noexcept { this->retire(); }
#endif
};
