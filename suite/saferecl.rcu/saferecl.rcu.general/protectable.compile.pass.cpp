// <rcu>
//
// [saferecl.rcu.general]/2: a class T is rcu-protectable if it has exactly one base class
//   of type rcu_obj_base<T, D> for some D, that base is public and not virtual, and T has
//   no base class of type rcu_obj_base<X, Y> for any other combination X, Y.
//
// Relies on: the Mandates of retire are checked when its definition is instantiated, so
// every call is odr-used in a function that is compiled but never run (nothing is
// retired). The must-not-compile forms are in saferecl.rcu.base/retire.*.compile.fail.cpp.
#include "support/test.hpp"

#include <type_traits>

namespace {
struct Deleter {
  Deleter() noexcept {}
  template <class T>
  void operator()(T* p) const noexcept {
    delete p;
  }
};

// The plain CRTP form.
struct Plain : sut::rcu_obj_base<Plain> {
  Plain() noexcept {}
  int payload = 0;
};

// A user-supplied deleter type.
struct WithDeleter : sut::rcu_obj_base<WithDeleter, Deleter> {
  WithDeleter() noexcept {}
};

// The base is not the first one, and another (unrelated, polymorphic) base comes first.
struct Other {
  Other() noexcept {}
  virtual ~Other() = default;
  long other = 1;
};
struct NotFirst final : Other, sut::rcu_obj_base<NotFirst> {
  NotFirst() noexcept {}
};

// The base is inherited through an intermediate class.
struct Indirect;
struct Middle : sut::rcu_obj_base<Indirect> {
  Middle() noexcept {}
};
struct Indirect : Middle {
  Indirect() noexcept {}
};

[[maybe_unused]] void instantiate_all(Plain* a, WithDeleter* b, NotFirst* c, Indirect* d) {
  a->retire();
  b->retire();
  b->retire(Deleter{}, sut::rcu_default_domain());
  c->retire();
  d->retire();
}
}  // namespace

TEST_CASE("saferecl.rcu.general/2 R1: rcu-protectable classes are accepted by retire" *
          doctest::test_suite("core.api")) {
  // Everything is checked when instantiate_all is compiled; nothing runs here.
  static_assert(std::is_class_v<Plain> && std::is_class_v<WithDeleter> &&
                std::is_class_v<NotFirst> && std::is_class_v<Indirect>);
}
