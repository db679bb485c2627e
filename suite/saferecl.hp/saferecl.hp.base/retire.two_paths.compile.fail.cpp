// <hazard_pointer>
//
// void hazard_pointer_obj_base<T, D>::retire(D d = D()) noexcept;
//   Mandates: T is a hazard-protectable type ([saferecl.hp.general]/2: exactly one
//   hazard_pointer_obj_base<T, D> base, public and not virtual, and no other such base).
//
// TEST: saferecl.hp.base/5 H13(c): retire is ill-formed when T has two hazard_pointer_obj_base<T> subobjects
// TIER: core
//
// Both paths are public and non-virtual. The call names one of them explicitly (through
// the intermediate class Left), so member lookup is unambiguous and only the Mandates can
// reject it. The twin makes the same call through an intermediate class when there is only
// one path.
#include <sut.hpp>

// One path: Single -> OnePath -> hazard_pointer_obj_base<Single>.
struct Single;
struct OnePath : sut::hazard_pointer_obj_base<Single> {
  OnePath() noexcept {}
};
struct Single : OnePath {
  Single() noexcept {}
};

// Two paths: Twice -> Left -> base, Twice -> Right -> base.
struct Twice;
struct Left : sut::hazard_pointer_obj_base<Twice> {
  Left() noexcept {}
};
struct Right : sut::hazard_pointer_obj_base<Twice> {
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
