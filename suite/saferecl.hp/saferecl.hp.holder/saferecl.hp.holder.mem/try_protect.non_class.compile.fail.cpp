// <hazard_pointer>
//
// template<class T> bool try_protect(T*& ptr, const atomic<T*>& src) noexcept;
//   Mandates: T is a hazard-protectable type.
//
// TEST: saferecl.hp.holder.mem/3 H27: try_protect of a pointer to int (T = int) is ill-formed
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
  Node* n = nullptr;
  static_cast<void>(h.try_protect(n, good));
#if SAFERECL_MUST_NOT_COMPILE
  Bad* b = nullptr;
  static_cast<void>(h.try_protect(b, bad));
#endif
  static_cast<void>(bad);
}
