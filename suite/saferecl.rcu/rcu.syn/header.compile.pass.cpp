// <rcu>
//
// [headers]: <rcu> is a hosted C++ library header.
// [res.on.headers]/1: on its own it declares what [rcu.syn] shows:
//   template<class T, class D = default_delete<T>> class rcu_obj_base;
//   class rcu_domain;
//   rcu_domain& rcu_default_domain() noexcept;
//   void rcu_synchronize(rcu_domain& dom = rcu_default_domain()) noexcept;
//   void rcu_barrier(rcu_domain& dom = rcu_default_domain()) noexcept;
//   template<class T, class D = default_delete<T>>
//     void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain());
// [version.syn]/2: it defines __cpp_lib_rcu (>= 202306L).
//
// Relies on: only the std adapter is a standard library. It defines SAFERECL_STD_HAS_RCU
// when <rcu> exists, which is the one thing a translation unit can test before it includes
// anything; with any other adapter the cases report NOT APPLICABLE. <rcu> is the first
// include of this file and its names are used before anything else is included.
// FIRST-INCLUDE: <rcu>
#if defined(SAFERECL_STD_HAS_RCU)
#if !__has_include(<rcu>)
#error "__has_include(<rcu>) is false in a hosted implementation"
#endif
#include <rcu>

#if !defined(__cpp_lib_rcu)
#error "<rcu> does not define __cpp_lib_rcu"
#endif
static_assert(__cpp_lib_rcu >= 202306L, "<rcu> defines __cpp_lib_rcu below 202306L");

namespace header_alone {
struct Node : std::rcu_obj_base<Node> {
  Node() noexcept {}
};

[[maybe_unused]] void uses_the_names_declared_by_the_header(Node* node, int* p) {
  std::rcu_domain& dom = std::rcu_default_domain();
  dom.lock();
  static_cast<void>(dom.try_lock());
  dom.unlock();
  dom.unlock();
  node->retire();
  std::rcu_retire(p);
  std::rcu_synchronize();
  std::rcu_barrier(dom);
}
}  // namespace header_alone

#define SAFERECL_HEADER_ALONE_CHECKED 1
#endif  // SAFERECL_STD_HAS_RCU

#include "support/test.hpp"

#include <string_view>

namespace {
void only_for_a_standard_library() {
  if (std::string_view(SUT_NAME) != "std")
    saferecl::test::not_applicable("<rcu> as a standard header: the " SUT_NAME
                                   " adapter is not a standard library (only the std adapter is)");
#if !defined(SAFERECL_HEADER_ALONE_CHECKED)
  FAIL("the std adapter did not define SAFERECL_STD_HAS_RCU, so nothing was checked");
#endif
}
}  // namespace

TEST_CASE("saferecl.rcu headers G2: <rcu> exists in hosted mode and compiles on its own" *
          doctest::test_suite("core.api")) {
  only_for_a_standard_library();
}

TEST_CASE("saferecl.rcu res.on.headers/1 G5: <rcu> alone declares its synopsis" *
          doctest::test_suite("core.api")) {
  only_for_a_standard_library();
}

TEST_CASE("saferecl.rcu version.syn/2 G3: <rcu> defines __cpp_lib_rcu >= 202306L" *
          doctest::test_suite("core.api")) {
  only_for_a_standard_library();
#if defined(__cpp_lib_rcu)
  MESSAGE("__cpp_lib_rcu = " << __cpp_lib_rcu);
#endif
}
