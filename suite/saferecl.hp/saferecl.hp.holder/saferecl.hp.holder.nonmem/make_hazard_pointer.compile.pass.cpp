// <hazard_pointer>
//
// hazard_pointer make_hazard_pointer();
//
// Relies on: an unevaluated operand only; no hazard pointer is created. It is not
// asserted that the call may throw: an implementation may strengthen the exception
// specification ([res.on.exception.handling]/5).
#include "support/test.hpp"

#include <type_traits>

TEST_CASE("saferecl.hp.holder.nonmem/1 H11: make_hazard_pointer() returns a hazard_pointer prvalue" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_same_v<decltype(sut::make_hazard_pointer()), sut::hazard_pointer>);
}
