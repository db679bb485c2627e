// <hazard_pointer>
//
// void hazard_pointer_obj_base<T, D>::retire(D d = D()) noexcept;
//   Mandates: T is a hazard-protectable type ([saferecl.hp.general]/2: exactly one
//   hazard_pointer_obj_base<T, D> base, public and not virtual, and no other such base).
//
// TEST: saferecl.hp.base/5 H13(b): retire is ill-formed when the base is virtual
// TIER: core
//
// The base is public and unique, so retire is accessible and unambiguous; being virtual is
// the only reason to reject the call. The twin retires a class with a non-virtual base.
#include <sut.hpp>

struct NonVirtual : sut::hazard_pointer_obj_base<NonVirtual> {
  NonVirtual() noexcept {}
};

struct Virtual : virtual sut::hazard_pointer_obj_base<Virtual> {
  Virtual() noexcept {}
};

void retire_them(NonVirtual* n, Virtual* v) {
  n->retire();
#if SAFERECL_MUST_NOT_COMPILE
  v->retire();
#endif
  static_cast<void>(v);
}
