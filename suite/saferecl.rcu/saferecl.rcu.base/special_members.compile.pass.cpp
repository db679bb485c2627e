// <rcu>
//
// template<class T, class D = default_delete<T>>
// class rcu_obj_base {
// protected:
//   rcu_obj_base() = default;
//   rcu_obj_base(const rcu_obj_base&) = default;
//   rcu_obj_base(rcu_obj_base&&) = default;
//   rcu_obj_base& operator=(const rcu_obj_base&) = default;
//   rcu_obj_base& operator=(rcu_obj_base&&) = default;
//   ~rcu_obj_base() = default;
// };
//
// The base cannot be created, copied, assigned or destroyed on its own, but every special
// member is accessible to a derived class and defaulted, so a derived class keeps them all.
// [res.on.exception.handling]/3: library destructors do not throw.
//
// Relies on: type traits answer from an unrelated context; a derived class with a
// user-declared constructor (not an aggregate, requirements §2.9 item 4) whose own members
// are all non-throwing.
#include "support/test.hpp"

#include <type_traits>
#include <utility>

namespace {
struct Node : sut::rcu_obj_base<Node> {
  Node() noexcept {}
  explicit Node(int v) noexcept : value(v) {}
  int value = 0;
};
using Base = sut::rcu_obj_base<Node>;

// A derived class that uses each protected member of the base explicitly.
struct Explicit : sut::rcu_obj_base<Explicit> {
  using B = sut::rcu_obj_base<Explicit>;
  Explicit() noexcept : B() {}
  Explicit(const Explicit& o) noexcept : B(o) {}
  Explicit(Explicit&& o) noexcept : B(std::move(o)) {}
  Explicit& operator=(const Explicit& o) noexcept {
    B::operator=(o);
    return *this;
  }
  Explicit& operator=(Explicit&& o) noexcept {
    B::operator=(std::move(o));
    return *this;
  }
  ~Explicit() {}
};
}  // namespace

TEST_CASE("saferecl.rcu.base R9: the special members of rcu_obj_base are not public" *
          doctest::test_suite("core.api")) {
  static_assert(!std::is_default_constructible_v<Base>);
  static_assert(!std::is_copy_constructible_v<Base>);
  static_assert(!std::is_move_constructible_v<Base>);
  static_assert(!std::is_copy_assignable_v<Base>);
  static_assert(!std::is_move_assignable_v<Base>);
  static_assert(!std::is_destructible_v<Base>);
}

TEST_CASE("saferecl.rcu.base R9: a class derived from rcu_obj_base is constructible copyable movable and destructible" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_default_constructible_v<Node>);
  static_assert(std::is_constructible_v<Node, int>);
  static_assert(std::is_copy_constructible_v<Node>);
  static_assert(std::is_move_constructible_v<Node>);
  static_assert(std::is_copy_assignable_v<Node>);
  static_assert(std::is_move_assignable_v<Node>);
  static_assert(std::is_destructible_v<Node>);
  static_assert(std::is_copy_constructible_v<Explicit> && std::is_move_constructible_v<Explicit>);
  static_assert(std::is_copy_assignable_v<Explicit> && std::is_move_assignable_v<Explicit>);

  // The same, evaluated: copies and moves of objects that are never retired.
  Node a(1);
  Node b(a);
  Node c(std::move(b));
  b = c;
  c = std::move(a);
  Explicit e;
  Explicit f(e);
  f = std::move(e);
  CHECK(c.value == 1);
}

TEST_CASE("saferecl.rcu.base res.on.exception.handling/3 G7: a class derived from rcu_obj_base is nothrow-destructible" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_nothrow_destructible_v<Node>);
  static_assert(std::is_nothrow_destructible_v<Explicit>);
}
