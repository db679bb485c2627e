// <rcu>
//
// template<class T, class D = default_delete<T>> class rcu_obj_base;
//
// [saferecl.rcu.base]/3: T may be an incomplete type; it shall be complete before any
//   member of the resulting specialization of rcu_obj_base is referenced.
//
// Relies on: the base clause of the CRTP form instantiates the class template while T is
// still incomplete; members are referenced only after T is complete.
#include "support/test.hpp"

#include <type_traits>

namespace {
struct Declared;  // never defined

struct Later;  // complete only further down
struct LaterDeleter {
  void operator()(Later* p) const noexcept;  // T* of an incomplete T
};

// The class template is instantiated here, while Node (and its deleter's T) is incomplete.
struct Node : sut::rcu_obj_base<Node> {
  Node() noexcept {}
  Node* next = nullptr;
};
struct Later : sut::rcu_obj_base<Later, LaterDeleter> {
  Later() noexcept {}
  sut::rcu_obj_base<Declared>* unrelated = nullptr;
};
void LaterDeleter::operator()(Later* p) const noexcept { delete p; }

[[maybe_unused]] void members_used_once_complete(Node* n, Later* l) {
  n->retire();
  l->retire();
}
}  // namespace

TEST_CASE("saferecl.rcu.base/3 R11: rcu_obj_base<T> may be named and used as a base while T is incomplete" *
          doctest::test_suite("core.api")) {
  sut::rcu_obj_base<Declared>* p = nullptr;
  static_assert(std::is_base_of_v<sut::rcu_obj_base<Node>, Node>);
  static_assert(std::is_base_of_v<sut::rcu_obj_base<Later, LaterDeleter>, Later>);
  CHECK(p == nullptr);
}
