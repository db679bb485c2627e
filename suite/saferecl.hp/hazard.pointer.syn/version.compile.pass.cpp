// <version>
//
// [version.syn]/2: #define __cpp_lib_hazard_pointer 202306L  // C++26; 202606L in the C++29 WD
//                  also in <hazard_pointer>; later revisions may raise it, so compare with >=.
//
// Relies on: only the std adapter is a standard library (see header.compile.pass.cpp);
// <version> is the first include of this file, so nothing but <version> can have defined
// the macro when it is checked. With any other adapter the case reports NOT APPLICABLE.
// FIRST-INCLUDE: <version>
#if defined(SAFERECL_STD_HAS_HAZARD_POINTER)
#include <version>

#if !defined(__cpp_lib_hazard_pointer)
#error "<version> does not define __cpp_lib_hazard_pointer"
#endif
static_assert(__cpp_lib_hazard_pointer >= 202306L,
              "<version> defines __cpp_lib_hazard_pointer below 202306L");
#define SAFERECL_VERSION_CHECKED 1
#endif

#include "support/test.hpp"

#include <string_view>

TEST_CASE("saferecl.hp version.syn/2 G4: <version> defines __cpp_lib_hazard_pointer >= 202306L" *
          doctest::test_suite("core.api")) {
  if (std::string_view(SUT_NAME) != "std")
    saferecl::test::not_applicable("feature-test macros: the " SUT_NAME
                                   " adapter is not a standard library (only the std adapter is)");
#if !defined(SAFERECL_VERSION_CHECKED)
  FAIL("the std adapter did not define SAFERECL_STD_HAS_HAZARD_POINTER, so nothing was checked");
#else
  MESSAGE("__cpp_lib_hazard_pointer = " << __cpp_lib_hazard_pointer);
#endif
}
