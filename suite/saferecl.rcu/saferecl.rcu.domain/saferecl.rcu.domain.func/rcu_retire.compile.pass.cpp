// <rcu>
//
// template<class T, class D = default_delete<T>>
//   void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain());
//   Mandates: is_move_constructible_v<D> is true and the expression d(p) is well-formed.
//   Throws: bad_alloc, or any exception thrown while initializing d1 (from d).
//
// Relies on: unevaluated operands for the type checks; the calls are also odr-used in a
// function that is compiled but never run, so that the definition (where the Mandates are
// checked) is instantiated for deleters that satisfy them. Nothing is retired. Whether
// rcu_retire may throw is asserted only in the strict case R41: an implementation may
// strengthen noexcept, but not where the Throws element must propagate an exception.
#include "support/test.hpp"

#include <memory>
#include <type_traits>
#include <utility>

namespace {
struct Plain {  // no base class needed
  Plain() noexcept {}
  int value = 0;
};
struct Deleter {
  void operator()(Plain* p) const noexcept { delete p; }
};
struct MoveOnly {  // move-constructible, not copyable
  MoveOnly() noexcept {}
  MoveOnly(MoveOnly&&) noexcept {}
  MoveOnly(const MoveOnly&) = delete;
  void operator()(Plain* p) const noexcept { delete p; }
};
struct NoDefault {  // the default argument D() must not be instantiated when d is given
  explicit NoDefault(int t) noexcept : tag(t) {}
  void operator()(Plain* p) const noexcept { delete p; }
  int tag;
};
struct ThrowingMove {
  ThrowingMove() noexcept {}
  ThrowingMove(ThrowingMove&&) noexcept(false) {}
  void operator()(Plain* p) const noexcept { delete p; }
};

[[maybe_unused]] void rcu_retire_forms(Plain* p, const Plain* cp, int* i, int* array) {
  sut::rcu_domain& dom = sut::rcu_default_domain();
  sut::rcu_retire(p);
  sut::rcu_retire(p, Deleter{});
  sut::rcu_retire(p, Deleter{}, dom);
  sut::rcu_retire(p, MoveOnly{});
  sut::rcu_retire(p, NoDefault{1});
  sut::rcu_retire(p, NoDefault{2}, dom);
  sut::rcu_retire(p, ThrowingMove{});
  sut::rcu_retire(p, [](Plain* q) noexcept { delete q; });
  sut::rcu_retire(cp);
  sut::rcu_retire(i);
  sut::rcu_retire(array, std::default_delete<int[]>{});
}
}  // namespace

TEST_CASE("saferecl.rcu.domain.func/8 R7: rcu_retire with one two or three arguments is well-formed and returns void" *
          doctest::test_suite("core.api")) {
  using Dom = sut::rcu_domain&;
  static_assert(std::is_void_v<decltype(sut::rcu_retire(std::declval<Plain*>()))>);
  static_assert(std::is_void_v<decltype(sut::rcu_retire(std::declval<Plain*>(), Deleter{}))>);
  static_assert(std::is_void_v<decltype(sut::rcu_retire(std::declval<Plain*>(), Deleter{}, std::declval<Dom>()))>);
  static_assert(std::is_void_v<decltype(sut::rcu_retire(std::declval<int*>()))>);
  static_assert(std::is_void_v<decltype(sut::rcu_retire(std::declval<const Plain*>()))>);
  static_assert(std::is_void_v<decltype(sut::rcu_retire(std::declval<Plain*>(), MoveOnly{}))>);
  static_assert(std::is_void_v<decltype(sut::rcu_retire(std::declval<Plain*>(), NoDefault{3}, std::declval<Dom>()))>);
}

TEST_CASE("saferecl.rcu.domain.func/9 R41: rcu_retire with a deleter whose move may throw is not noexcept" *
          doctest::test_suite("strict.api")) {
  static_assert(!noexcept(sut::rcu_retire(std::declval<Plain*>(), ThrowingMove{})));
  static_assert(!noexcept(sut::rcu_retire(std::declval<Plain*>(), ThrowingMove{}, sut::rcu_default_domain())));
}
