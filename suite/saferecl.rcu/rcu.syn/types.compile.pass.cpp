// <rcu>
//
// namespace std {
//   template<class T, class D = default_delete<T>> class rcu_obj_base;
//   class rcu_domain;
// }
//
// Relies on: naming a specialization does not instantiate it, so T need not be complete
// here; is_same_v compares the types the default argument produces.
#include "support/test.hpp"

#include <memory>
#include <type_traits>

namespace {
struct Node : sut::rcu_obj_base<Node> {
  Node() noexcept {}
};
struct Declared;  // never defined
}  // namespace

TEST_CASE("saferecl.rcu rcu.syn R7: the default deleter of rcu_obj_base<T> is default_delete<T>" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_same_v<sut::rcu_obj_base<Node>,
                               sut::rcu_obj_base<Node, std::default_delete<Node>>>);
  static_assert(std::is_same_v<sut::rcu_obj_base<Declared>,
                               sut::rcu_obj_base<Declared, std::default_delete<Declared>>>);
  static_assert(std::is_class_v<sut::rcu_domain>);
}
