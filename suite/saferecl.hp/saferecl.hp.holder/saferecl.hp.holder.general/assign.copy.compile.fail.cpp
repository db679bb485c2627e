// <hazard_pointer>
//
// class hazard_pointer {
// public:
//   hazard_pointer& operator=(hazard_pointer&&) noexcept;   // no copy assignment is declared
// };
//
// TEST: saferecl.hp.holder.general H20: copy-assigning a hazard_pointer is ill-formed
// TIER: core
//
// A hazard pointer has exactly one owner. The twin move-assigns from the same lvalue.
#include <sut.hpp>

#include <utility>

void assign(sut::hazard_pointer& target, sut::hazard_pointer& source) {
  target = std::move(source);
#if SAFERECL_MUST_NOT_COMPILE
  target = source;
#endif
}
