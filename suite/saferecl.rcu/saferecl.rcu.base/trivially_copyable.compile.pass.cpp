// <rcu>
//
// template<class T, class D = default_delete<T>> class rcu_obj_base;
//
// [saferecl.rcu.base]/6: if D is trivially copyable, all specializations of
//   rcu_obj_base<T, D> are trivially copyable.
//
// Relies on: user-level deleters whose triviality this file controls; default_delete is
// not used, because its triviality is unspecified ([library.class.props]).
#include "support/test.hpp"

#include <type_traits>

namespace {
struct Empty {
  template <class T>
  void operator()(T* p) const noexcept {
    delete p;
  }
};
struct Tagged {
  template <class T>
  void operator()(T* p) const noexcept {
    delete p;
  }
  int tag = 0;
};
static_assert(std::is_trivially_copyable_v<Empty> && std::is_trivially_copyable_v<Tagged>);

struct Node : sut::rcu_obj_base<Node, Empty> {
  Node() noexcept {}
  int value = 0;
};
struct TaggedNode : sut::rcu_obj_base<TaggedNode, Tagged> {
  TaggedNode() noexcept {}
  double value = 0;
};
}  // namespace

TEST_CASE("saferecl.rcu.base/6 R13: rcu_obj_base is trivially copyable when its deleter type is" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_trivially_copyable_v<sut::rcu_obj_base<Node, Empty>>);
  static_assert(std::is_trivially_copyable_v<sut::rcu_obj_base<TaggedNode, Tagged>>);
  // So a derived class with trivially copyable members is trivially copyable as well.
  static_assert(std::is_trivially_copyable_v<Node>);
  static_assert(std::is_trivially_copyable_v<TaggedNode>);
}
