// <hazard_pointer>
//
// template<class T> bool try_protect(T*& ptr, const atomic<T*>& src) noexcept;
//
// Relies on: unevaluated operands for the type and noexcept checks; the calls are also
// odr-used in a function that is compiled but never run, so that the definition (where the
// Mandates are checked) is instantiated for a hazard-protectable type.
#include "support/test.hpp"

#include <atomic>
#include <type_traits>
#include <utility>

namespace {
struct Node : sut::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};

[[maybe_unused]] bool try_protect_forms(sut::hazard_pointer& h, Node*& ptr, std::atomic<Node*>& src,
                                        const std::atomic<Node*>& csrc) {
  return h.try_protect(ptr, src) && h.try_protect(ptr, csrc);
}
}  // namespace

TEST_CASE("saferecl.hp.holder.mem/5 H20: try_protect returns bool and is noexcept" *
          doctest::test_suite("core.api")) {
  using H = sut::hazard_pointer;
  static_assert(std::is_same_v<decltype(std::declval<H&>().try_protect(
                                   std::declval<Node*&>(), std::declval<const std::atomic<Node*>&>())),
                               bool>);
  static_assert(std::is_same_v<decltype(std::declval<H&>().try_protect(
                                   std::declval<Node*&>(), std::declval<std::atomic<Node*>&>())),
                               bool>);
  static_assert(noexcept(std::declval<H&>().try_protect(std::declval<Node*&>(),
                                                        std::declval<const std::atomic<Node*>&>())));
}
