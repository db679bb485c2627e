// <hazard_pointer>
//
// template<class T> T* protect(const atomic<T*>& src) noexcept;
//
// Relies on: unevaluated operands for the type and noexcept checks; the calls are also
// odr-used in a function that is compiled but never run, so that the definition (where the
// Mandates are checked) is instantiated for hazard-protectable types.
#include "support/test.hpp"

#include <atomic>
#include <type_traits>
#include <utility>

namespace {
struct Node : sut::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};
struct Deleter {
  template <class T>
  void operator()(T* p) const noexcept {
    delete p;
  }
};
struct Custom : sut::hazard_pointer_obj_base<Custom, Deleter> {
  Custom() noexcept {}
};

[[maybe_unused]] void protect_forms(sut::hazard_pointer& h, std::atomic<Node*>& src,
                                    const std::atomic<Custom*>& csrc) {
  Node* n = h.protect(src);
  Custom* c = h.protect(csrc);
  static_cast<void>(n);
  static_cast<void>(c);
}
}  // namespace

TEST_CASE("saferecl.hp.holder.mem/2 H20: protect returns a T pointer and is noexcept" *
          doctest::test_suite("core.api")) {
  using H = sut::hazard_pointer;
  static_assert(std::is_same_v<decltype(std::declval<H&>().protect(std::declval<const std::atomic<Node*>&>())),
                               Node*>);
  static_assert(std::is_same_v<decltype(std::declval<H&>().protect(std::declval<std::atomic<Node*>&>())),
                               Node*>);
  static_assert(std::is_same_v<decltype(std::declval<H&>().protect(std::declval<const std::atomic<Custom*>&>())),
                               Custom*>);
  static_assert(noexcept(std::declval<H&>().protect(std::declval<const std::atomic<Node*>&>())));
  static_assert(noexcept(std::declval<H&>().protect(std::declval<std::atomic<Custom*>&>())));
}
