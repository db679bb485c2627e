// <hazard_pointer>
//
// template<class T> void reset_protection(const T* ptr) noexcept;
// void reset_protection(nullptr_t = nullptr) noexcept;
//
// Relies on: unevaluated operands for the type and noexcept checks; the calls are also
// odr-used in a function that is compiled but never run. nullptr cannot deduce T in
// const T*, so reset_protection() and reset_protection(nullptr) can only be the
// non-template overload (H33); a null T* goes to the template.
#include "support/test.hpp"

#include <cstddef>
#include <type_traits>
#include <utility>

namespace {
struct Node : sut::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};

[[maybe_unused]] void reset_forms(sut::hazard_pointer& h, Node* p, const Node* cp) {
  h.reset_protection(p);
  h.reset_protection(cp);
  h.reset_protection(static_cast<Node*>(nullptr));
  h.reset_protection();
  h.reset_protection(nullptr);
  h.reset_protection(std::nullptr_t{});
}
}  // namespace

TEST_CASE("saferecl.hp.holder.mem/9 H20: reset_protection of a T pointer returns void and is noexcept" *
          doctest::test_suite("core.api")) {
  using H = sut::hazard_pointer;
  static_assert(std::is_void_v<decltype(std::declval<H&>().reset_protection(std::declval<Node*>()))>);
  static_assert(std::is_void_v<decltype(std::declval<H&>().reset_protection(std::declval<const Node*>()))>);
  static_assert(noexcept(std::declval<H&>().reset_protection(std::declval<Node*>())));
  static_assert(noexcept(std::declval<H&>().reset_protection(std::declval<const Node*>())));
}

TEST_CASE("saferecl.hp.holder.mem/12 H33: reset_protection() and reset_protection(nullptr) are well-formed noexcept and return void" *
          doctest::test_suite("core.api")) {
  using H = sut::hazard_pointer;
  static_assert(std::is_void_v<decltype(std::declval<H&>().reset_protection())>);
  static_assert(std::is_void_v<decltype(std::declval<H&>().reset_protection(nullptr))>);
  static_assert(noexcept(std::declval<H&>().reset_protection()));
  static_assert(noexcept(std::declval<H&>().reset_protection(nullptr)));
}
