// <hazard_pointer>
//
// template<class T> T* protect(const atomic<T*>& src) noexcept;
//   Effects: equivalent to a loop of try_protect, whose Mandates apply: T is a
//   hazard-protectable type.
//
// TEST: saferecl.hp.holder.mem/2 H27: protect of a class derived from a hazard-protectable class is ill-formed
// TIER: strict
//
// Bad derives from Protectable, so its only hazard base is
// hazard_pointer_obj_base<Protectable>, not hazard_pointer_obj_base<Bad>: Bad is not
// hazard-protectable. Strict, as in requirements.md H27.
// The twin makes the same call for a hazard-protectable class.
#include <sut.hpp>

#include <atomic>

struct Node : sut::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};
struct Protectable : sut::hazard_pointer_obj_base<Protectable> {
  Protectable() noexcept {}
};
struct Bad : Protectable {
  Bad() noexcept {}
};

void call(sut::hazard_pointer& h, const std::atomic<Node*>& good, const std::atomic<Bad*>& bad) {
  Node* n = h.protect(good);
  static_cast<void>(n);
#if SAFERECL_MUST_NOT_COMPILE
  Bad* b = h.protect(bad);
  static_cast<void>(b);
#endif
  static_cast<void>(bad);
}
