// <hazard_pointer>
//
// class hazard_pointer {
// public:
//   hazard_pointer() noexcept;
//   hazard_pointer(hazard_pointer&&) noexcept;
//   hazard_pointer& operator=(hazard_pointer&&) noexcept;
//   ~hazard_pointer();
// };
//
// No copy operations are declared, so hazard_pointer is move-only.
//
// Relies on: type traits and unevaluated operands only; no hazard pointer is created.
#include "support/test.hpp"

#include <type_traits>
#include <utility>

using sut::hazard_pointer;

TEST_CASE("saferecl.hp.holder.ctor/1 H20: hazard_pointer() is noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_nothrow_default_constructible_v<hazard_pointer>);
}

TEST_CASE("saferecl.hp.holder.ctor/2 H20: the move constructor of hazard_pointer is noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_nothrow_move_constructible_v<hazard_pointer>);
}

TEST_CASE("saferecl.hp.holder.ctor/4 H20: move assignment of hazard_pointer is noexcept and returns hazard_pointer&" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_nothrow_move_assignable_v<hazard_pointer>);
  static_assert(std::is_same_v<decltype(std::declval<hazard_pointer&>() = std::declval<hazard_pointer>()),
                               hazard_pointer&>);
}

TEST_CASE("saferecl.hp.holder.ctor/3 H20: the destructor of hazard_pointer is noexcept" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_nothrow_destructible_v<hazard_pointer>);
}

TEST_CASE("saferecl.hp.holder.ctor H20: hazard_pointer is neither copy-constructible nor copy-assignable" *
          doctest::test_suite("core.api")) {
  static_assert(!std::is_copy_constructible_v<hazard_pointer>);
  static_assert(!std::is_constructible_v<hazard_pointer, hazard_pointer&>);
  static_assert(!std::is_copy_assignable_v<hazard_pointer>);
  static_assert(!std::is_assignable_v<hazard_pointer&, hazard_pointer&>);
}
