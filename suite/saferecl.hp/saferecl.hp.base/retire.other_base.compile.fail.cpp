// <hazard_pointer>
//
// void hazard_pointer_obj_base<T, D>::retire(D d = D()) noexcept;
//   Mandates: T is a hazard-protectable type ([saferecl.hp.general]/2: exactly one
//   hazard_pointer_obj_base<T, D> base, public and not virtual, and no base of type
//   hazard_pointer_obj_base<T2, D2> for any other combination T2, D2).
//
// TEST: saferecl.hp.base/5 H13(d): retire is ill-formed when T also has an unrelated hazard_pointer_obj_base<Other> base
// TIER: strict
//
// Both is derived from hazard_pointer_obj_base<Both> and, through Other, from
// hazard_pointer_obj_base<Other>. The call names Both's own base explicitly, so lookup is
// unambiguous and only the Mandates can reject it. Strict: a diagnosis needs a search of
// every base class, which plausible implementations may not do. The twin makes the same
// call on a class whose Other is not hazard-protectable.
#include <sut.hpp>

struct Other : sut::hazard_pointer_obj_base<Other> {
  Other() noexcept {}
};
struct PlainOther {
  PlainOther() noexcept {}
};

struct Both : sut::hazard_pointer_obj_base<Both>, Other {
  Both() noexcept {}
};
struct Fine : sut::hazard_pointer_obj_base<Fine>, PlainOther {
  Fine() noexcept {}
};

void retire_them(Fine* f, Both* b) {
  static_cast<sut::hazard_pointer_obj_base<Fine>*>(f)->retire();
#if SAFERECL_MUST_NOT_COMPILE
  static_cast<sut::hazard_pointer_obj_base<Both>*>(b)->retire();
#endif
  static_cast<void>(b);
}
