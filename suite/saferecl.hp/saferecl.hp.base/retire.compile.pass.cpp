// <hazard_pointer>
//
// template<class T, class D = default_delete<T>>
// class hazard_pointer_obj_base {
// public:
//   void retire(D d = D()) noexcept;
// };
//
// Relies on: noexcept and decltype are unevaluated, so nothing is retired; the calls are
// also odr-used in a function that is compiled but never run, so that the definition of
// retire (where the Mandates are checked) is instantiated for a hazard-protectable T.
#include "support/test.hpp"

#include <memory>
#include <type_traits>
#include <utility>

namespace {
struct Node : sut::hazard_pointer_obj_base<Node> {
  Node() noexcept {}
};

struct Custom;
struct Deleter {
  Deleter() noexcept {}
  explicit Deleter(int t) noexcept : tag(t) {}
  void operator()(Custom* p) const noexcept;
  int tag = 0;
};
struct Custom : sut::hazard_pointer_obj_base<Custom, Deleter> {
  Custom() noexcept {}
};
void Deleter::operator()(Custom* p) const noexcept { delete p; }

[[maybe_unused]] void retire_forms(Node* n, Custom* c, const Deleter& d) {
  n->retire();
  c->retire();
  c->retire(Deleter(1));
  c->retire(d);
}
}  // namespace

TEST_CASE("saferecl.hp.base H12: retire is public returns void and is noexcept with and without its argument" *
          doctest::test_suite("core.api")) {
  static_assert(std::is_void_v<decltype(std::declval<Node&>().retire())>);
  static_assert(std::is_void_v<decltype(std::declval<Node&>().retire(std::default_delete<Node>()))>);
  static_assert(noexcept(std::declval<Node&>().retire()));
  static_assert(noexcept(std::declval<Node&>().retire(std::default_delete<Node>())));

  static_assert(std::is_void_v<decltype(std::declval<Custom&>().retire())>);
  static_assert(std::is_void_v<decltype(std::declval<Custom&>().retire(Deleter(7)))>);
  static_assert(noexcept(std::declval<Custom&>().retire()));
  static_assert(noexcept(std::declval<Custom&>().retire(Deleter(7))));
  static_assert(noexcept(std::declval<Custom&>().retire(std::declval<Deleter&>())));
}
