// <hazard_pointer>
//
// template<class T> T* protect(const atomic<T*>& src) noexcept;
//   Effects: equivalent to a loop of try_protect, whose Mandates apply: T is a
//   hazard-protectable type.
//
// TEST: saferecl.hp.holder.mem/2 H27: protect of a pointer to int (T = int) is ill-formed
// TIER: core
//
// T = int is not a class, so it cannot be hazard-protectable.
// The twin makes the same call for a hazard-protectable class.
#include <sut.hpp>

#include <atomic>

struct Node : sut::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};
using Bad = int;

void call(sut::hazard_pointer& h, const std::atomic<Node*>& good, const std::atomic<Bad*>& bad) {
  Node* n = h.protect(good);
  static_cast<void>(n);
#if SAFERECL_MUST_NOT_COMPILE
  Bad* b = h.protect(bad);
  static_cast<void>(b);
#endif
  static_cast<void>(bad);
}
