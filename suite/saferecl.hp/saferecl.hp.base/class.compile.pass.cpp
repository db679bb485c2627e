// <hazard_pointer>
//
// template<class T, class D = default_delete<T>>
// class hazard_pointer_obj_base;
//
// [derivation]/4: a library class is not final unless it is specified to be.
//
// Relies on: nothing but the class template; the deleter is a user type so that the
// answer cannot depend on default_delete.
#include "support/test.hpp"

#include <type_traits>

namespace {
struct Deleter {
  template <class T>
  void operator()(T* p) const noexcept {
    delete p;
  }
};
struct Node : sut::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};
struct Custom : sut::hazard_pointer_obj_base<Custom, Deleter> {
  Custom() noexcept {}
};
}  // namespace

TEST_CASE("saferecl.hp.base derivation/4 G6: hazard_pointer_obj_base is not final" *
          doctest::test_suite("core.api")) {
  static_assert(!std::is_final_v<sut::hazard_pointer_obj_base<Node>>);
  static_assert(!std::is_final_v<sut::hazard_pointer_obj_base<Custom, Deleter>>);
}
