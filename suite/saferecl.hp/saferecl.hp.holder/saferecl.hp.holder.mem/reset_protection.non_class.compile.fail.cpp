// <hazard_pointer>
//
// template<class T> void reset_protection(const T* ptr) noexcept;
//   Mandates: T is a hazard-protectable type.
//
// TEST: saferecl.hp.holder.mem/7 H27: reset_protection of a pointer to int (T = int) is ill-formed
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
  const Node* n = good.load();
  h.reset_protection(n);
#if SAFERECL_MUST_NOT_COMPILE
  const Bad* b = bad.load();
  h.reset_protection(b);
#endif
  static_cast<void>(bad);
}
