// <hazard_pointer>
//
// class hazard_pointer {
// public:
//   hazard_pointer(hazard_pointer&&) noexcept;   // no copy constructor is declared
// };
//
// TEST: saferecl.hp.holder.general H20: copy-constructing a hazard_pointer is ill-formed
// TIER: core
//
// A hazard pointer has exactly one owner. The twin move-constructs from the same kind of
// lvalue.
#include <sut.hpp>

#include <utility>

void copy(sut::hazard_pointer& h) {
  sut::hazard_pointer moved(std::move(h));
  static_cast<void>(moved);
#if SAFERECL_MUST_NOT_COMPILE
  sut::hazard_pointer copied(moved);
  static_cast<void>(copied);
#endif
}
