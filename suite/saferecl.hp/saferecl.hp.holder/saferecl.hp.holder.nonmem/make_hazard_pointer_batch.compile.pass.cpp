// <hazard_pointer>
//
// void make_hazard_pointer_batch(span<hazard_pointer> batch);   // C++29 (P3428R4)
//
// REQUIRES: hp-batch
//
// Relies on: unevaluated operands only; nothing is allocated. Every contiguous range of
// hazard_pointer converts to span<hazard_pointer> at the call. It is not asserted that the
// call may throw: an implementation may strengthen the exception specification.
#include "support/test.hpp"

#include <array>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace {
using H = sut::hazard_pointer;
}  // namespace

TEST_CASE("saferecl.hp.holder.nonmem/5 B1: make_hazard_pointer_batch returns void and accepts every contiguous range of hazard_pointer" *
          doctest::test_suite("cxx29.api")) {
  static_assert(std::is_void_v<decltype(sut::make_hazard_pointer_batch(std::declval<std::span<H>>()))>);
  static_assert(std::is_void_v<decltype(sut::make_hazard_pointer_batch(std::declval<std::span<H, 3>>()))>);
  static_assert(std::is_void_v<decltype(sut::make_hazard_pointer_batch(std::declval<std::array<H, 4>&>()))>);
  static_assert(std::is_void_v<decltype(sut::make_hazard_pointer_batch(std::declval<std::vector<H>&>()))>);
  static_assert(std::is_void_v<decltype(sut::make_hazard_pointer_batch(std::declval<H (&)[5]>()))>);
  static_assert(std::is_void_v<decltype(sut::make_hazard_pointer_batch({}))>);
}
