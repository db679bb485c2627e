// <hazard_pointer>
//
// void clear_hazard_pointer_batch(span<hazard_pointer> batch) noexcept;   // C++29 (P3428R4)
//
// REQUIRES: hp-batch
//
// Relies on: unevaluated operands only. Every contiguous range of hazard_pointer converts
// to span<hazard_pointer> at the call. noexcept is asserted only where the conversion to
// span is itself noexcept ([span.cons]: not the general range constructor used for vector).
#include "support/test.hpp"

#include <array>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace {
using H = sut::hazard_pointer;
}  // namespace

TEST_CASE("saferecl.hp.holder.nonmem/7 B1: clear_hazard_pointer_batch returns void and is noexcept for every contiguous range of hazard_pointer" *
          doctest::test_suite("cxx29.api")) {
  static_assert(std::is_void_v<decltype(sut::clear_hazard_pointer_batch(std::declval<std::span<H>>()))>);
  static_assert(noexcept(sut::clear_hazard_pointer_batch(std::declval<std::span<H>>())));
  static_assert(noexcept(sut::clear_hazard_pointer_batch(std::declval<std::span<H, 3>>())));
  static_assert(noexcept(sut::clear_hazard_pointer_batch(std::declval<std::array<H, 4>&>())));
  static_assert(std::is_void_v<decltype(sut::clear_hazard_pointer_batch(std::declval<std::vector<H>&>()))>);
  static_assert(noexcept(sut::clear_hazard_pointer_batch(std::declval<H (&)[5]>())));
  static_assert(noexcept(sut::clear_hazard_pointer_batch({})));
}
