// <hazard_pointer>
//
// template<class T> void reset_protection(const T* ptr) noexcept;
//   Mandates: T is a hazard-protectable type.
//
// TEST: saferecl.hp.holder.mem/7 H27: reset_protection of a class without hazard_pointer_obj_base is ill-formed
// TIER: strict
//
// Bad is a class with no hazard_pointer_obj_base base at all. Strict (requirements.md
// H27): only non-class T is held to be diagnosable everywhere.
// The twin makes the same call for a hazard-protectable class.
#include <sut.hpp>

#include <atomic>

struct Node : sut::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};
struct Bad {
  Bad() noexcept {}
  int value = 0;
};

void call(sut::hazard_pointer& h, const std::atomic<Node*>& good, const std::atomic<Bad*>& bad) {
  const Node* n = good.load();
  h.reset_protection(n);
#if SAFERECL_MUST_NOT_COMPILE
  const Bad* b = bad.load();
  h.reset_protection(b);
#endif
  static_cast<void>(bad);
}
