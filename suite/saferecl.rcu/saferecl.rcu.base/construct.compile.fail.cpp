// <rcu>
//
// template<class T, class D = default_delete<T>>
// class rcu_obj_base {
// protected:
//   rcu_obj_base() = default;
//   ~rcu_obj_base() = default;
// };
//
// TEST: saferecl.rcu.base R9: creating an rcu_obj_base outside a derived class is ill-formed
// TIER: core
//
// The twin creates the derived class, which uses the same constructor and destructor from
// inside; with SAFERECL_MUST_NOT_COMPILE the base is created on its own.
#include <sut.hpp>

struct Node : sut::rcu_obj_base<Node> {
  Node() noexcept {}
};

void create() {
  Node derived;
  static_cast<void>(derived);
#if SAFERECL_MUST_NOT_COMPILE
  sut::rcu_obj_base<Node> base;
  static_cast<void>(base);
#endif
}
