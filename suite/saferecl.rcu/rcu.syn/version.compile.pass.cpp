// <version>
//
// [version.syn]/2: #define __cpp_lib_rcu 202306L  // also in <rcu>; later revisions may
//                  raise it, so compare with >=.
//
// Relies on: only the std adapter is a standard library (see header.compile.pass.cpp);
// <version> is the first include of this file, so nothing but <version> can have defined
// the macro when it is checked. With any other adapter the case reports NOT APPLICABLE.
// FIRST-INCLUDE: <version>
#if defined(SAFERECL_STD_HAS_RCU)
#include <version>

#if !defined(__cpp_lib_rcu)
#error "<version> does not define __cpp_lib_rcu"
#endif
static_assert(__cpp_lib_rcu >= 202306L, "<version> defines __cpp_lib_rcu below 202306L");
#define SAFERECL_VERSION_CHECKED 1
#endif

#include "support/test.hpp"

#include <string_view>

TEST_CASE("saferecl.rcu version.syn/2 G3: <version> defines __cpp_lib_rcu >= 202306L" *
          doctest::test_suite("core.api")) {
  if (std::string_view(SUT_NAME) != "std")
    saferecl::test::not_applicable("feature-test macros: the " SUT_NAME
                                   " adapter is not a standard library (only the std adapter is)");
#if !defined(SAFERECL_VERSION_CHECKED)
  FAIL("the std adapter did not define SAFERECL_STD_HAS_RCU, so nothing was checked");
#else
  MESSAGE("__cpp_lib_rcu = " << __cpp_lib_rcu);
#endif
}
