// <hazard_pointer>
//
// [headers]: <hazard_pointer> is a hosted C++ library header.
// [res.on.headers]/1: on its own it declares what [hazard.pointer.syn] shows:
//   template<class T, class D = default_delete<T>> class hazard_pointer_obj_base;
//   class hazard_pointer;
//   hazard_pointer make_hazard_pointer();
//   void swap(hazard_pointer&, hazard_pointer&) noexcept;
// [version.syn]/2: it defines __cpp_lib_hazard_pointer (>= 202306L; 202606L and later
//   include make_hazard_pointer_batch and clear_hazard_pointer_batch).
//
// Relies on: only the std adapter is a standard library. It defines
// SAFERECL_STD_HAS_HAZARD_POINTER when <hazard_pointer> exists, which is the one thing a
// translation unit can test before it includes anything; with any other adapter the
// cases report NOT APPLICABLE. <hazard_pointer> is the first include of this file, and its
// names are used before anything else is included, except <atomic> and <span>, which the
// header need not provide and which are included only where those types are spelled.
// FIRST-INCLUDE: <hazard_pointer>
#if defined(SAFERECL_STD_HAS_HAZARD_POINTER)
#if !__has_include(<hazard_pointer>)
#error "__has_include(<hazard_pointer>) is false in a hosted implementation"
#endif
#include <hazard_pointer>

#if !defined(__cpp_lib_hazard_pointer)
#error "<hazard_pointer> does not define __cpp_lib_hazard_pointer"
#endif
static_assert(__cpp_lib_hazard_pointer >= 202306L,
              "<hazard_pointer> defines __cpp_lib_hazard_pointer below 202306L");

namespace header_alone {
struct Node : std::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};

[[maybe_unused]] void uses_the_names_declared_by_the_header(Node* retired) {
  std::hazard_pointer h = std::make_hazard_pointer();
  std::hazard_pointer g;
  std::swap(h, g);
  h.swap(g);
  g.reset_protection();
  static_cast<void>(g.empty());
  retired->retire();
}
}  // namespace header_alone

#include <atomic>
namespace header_alone {
[[maybe_unused]] Node* protects(std::hazard_pointer& h, const std::atomic<Node*>& src) {
  return h.protect(src);
}
}  // namespace header_alone

#if __cpp_lib_hazard_pointer >= 202606L
#include <span>
namespace header_alone {
[[maybe_unused]] void batches(std::span<std::hazard_pointer> batch) {
  std::make_hazard_pointer_batch(batch);
  std::clear_hazard_pointer_batch(batch);
}
}  // namespace header_alone
#endif

#define SAFERECL_HEADER_ALONE_CHECKED 1
#endif  // SAFERECL_STD_HAS_HAZARD_POINTER

#include "support/test.hpp"

#include <string_view>

namespace {
void only_for_a_standard_library() {
  if (std::string_view(SUT_NAME) != "std")
    saferecl::test::not_applicable(
        "<hazard_pointer> as a standard header: the " SUT_NAME
        " adapter is not a standard library (only the std adapter is)");
#if !defined(SAFERECL_HEADER_ALONE_CHECKED)
  FAIL("the std adapter did not define SAFERECL_STD_HAS_HAZARD_POINTER, so nothing was checked");
#endif
}
}  // namespace

TEST_CASE("saferecl.hp headers G2: <hazard_pointer> exists in hosted mode and compiles on its own" *
          doctest::test_suite("core.api")) {
  only_for_a_standard_library();
}

TEST_CASE("saferecl.hp res.on.headers/1 G5: <hazard_pointer> alone declares its synopsis" *
          doctest::test_suite("core.api")) {
  only_for_a_standard_library();
}

TEST_CASE("saferecl.hp version.syn/2 G4: <hazard_pointer> defines __cpp_lib_hazard_pointer >= 202306L" *
          doctest::test_suite("core.api")) {
  only_for_a_standard_library();
#if defined(__cpp_lib_hazard_pointer)
  MESSAGE("__cpp_lib_hazard_pointer = " << __cpp_lib_hazard_pointer);
#endif
}

TEST_CASE("saferecl.hp version.syn/2 G4: at __cpp_lib_hazard_pointer >= 202606L <hazard_pointer> declares the batch functions" *
          doctest::test_suite("cxx29.api")) {
  only_for_a_standard_library();
#if defined(__cpp_lib_hazard_pointer) && __cpp_lib_hazard_pointer < 202606L
  saferecl::test::not_applicable("__cpp_lib_hazard_pointer < 202606L: no C++29 batch functions");
#endif
}
