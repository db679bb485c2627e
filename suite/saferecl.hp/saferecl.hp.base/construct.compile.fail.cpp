// <hazard_pointer>
//
// template<class T, class D = default_delete<T>>
// class hazard_pointer_obj_base {
// protected:
//   hazard_pointer_obj_base() = default;
//   ~hazard_pointer_obj_base() = default;
// };
//
// TEST: saferecl.hp.base H12: creating a hazard_pointer_obj_base outside a derived class is ill-formed
// TIER: core
//
// The twin creates the derived class, which uses the same constructor and destructor from
// inside; with SAFERECL_MUST_NOT_COMPILE the base is created on its own.
#include <sut.hpp>

struct Node : sut::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};

void create() {
  Node derived;
  static_cast<void>(derived);
#if SAFERECL_MUST_NOT_COMPILE
  sut::hazard_pointer_obj_base<Node> base;
  static_cast<void>(base);
#endif
}
