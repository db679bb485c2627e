// <hazard_pointer>
//
// class hazard_pointer {
// public:
//   ~hazard_pointer();
// };
//
// [derivation]/4: a library class is not final unless it is specified to be.
// [res.on.exception.handling]/3: destructors of library types do not throw.
//
// Relies on: nothing but the class; no hazard pointer is created.
#include "support/test.hpp"

#include <type_traits>
#include <utility>

TEST_CASE("saferecl.hp.holder.general derivation/4 G6: hazard_pointer is not final" *
          doctest::test_suite("core.api")) {
  static_assert(!std::is_final_v<sut::hazard_pointer>);
}

TEST_CASE("saferecl.hp.holder.general res.on.exception.handling/3 G7: hazard_pointer is nothrow-destructible" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_nothrow_destructible_v<sut::hazard_pointer>);
  static_assert(noexcept(std::declval<sut::hazard_pointer&>().~hazard_pointer()));
}
