// <hazard_pointer>
//
// [saferecl.hp.general]/2: a class T is hazard-protectable if it has exactly one base
//   class of type hazard_pointer_obj_base<T, D> for some D, that base is public and not
//   virtual, and T has no base class of type hazard_pointer_obj_base<T2, D2> for any other
//   combination T2, D2.
//
// Relies on: the Mandates of retire, protect, try_protect and reset_protection(const T*)
// are checked when their definitions are instantiated, so every call is odr-used in a
// function that is compiled but never run (the test owns no hazard pointer and retires
// nothing). The must-not-compile forms are in saferecl.hp.base/retire.*.compile.fail.cpp and
// saferecl.hp.holder.mem/*.compile.fail.cpp.
#include "support/test.hpp"

#include <atomic>

namespace {
struct Deleter {
  Deleter() noexcept {}
  template <class T>
  void operator()(T* p) const noexcept {
    delete p;
  }
};

// The plain CRTP form.
struct Plain : sut::hazard_pointer_obj_base<Plain> {
  Plain() noexcept {}
  int payload = 0;
};

// A user-supplied deleter type.
struct WithDeleter : sut::hazard_pointer_obj_base<WithDeleter, Deleter> {
  WithDeleter() noexcept {}
};

// The base is not the first one, and other (unrelated) bases come before it.
struct Other {
  Other() noexcept {}
  virtual ~Other() = default;
  long other = 1;
};
struct NotFirst final : Other, sut::hazard_pointer_obj_base<NotFirst> {
  NotFirst() noexcept {}
};

template <class T>
[[maybe_unused]] void every_mandated_call(sut::hazard_pointer& h, const std::atomic<T*>& src,
                                          T* p) {
  T* q = h.protect(src);
  static_cast<void>(h.try_protect(q, src));
  h.reset_protection(q);
  h.reset_protection(static_cast<const T*>(q));
  p->retire();
}

[[maybe_unused]] void instantiate_all(sut::hazard_pointer& h) {
  std::atomic<Plain*> a{nullptr};
  std::atomic<WithDeleter*> b{nullptr};
  std::atomic<NotFirst*> c{nullptr};
  every_mandated_call(h, a, a.load());
  every_mandated_call(h, b, b.load());
  every_mandated_call(h, c, c.load());
  b.load()->retire(Deleter{});
}
}  // namespace

TEST_CASE("saferecl.hp.general/2 H2: hazard-protectable classes are accepted by retire protect try_protect and reset_protection" *
          doctest::test_suite("core.api")) {
  // Everything is checked when instantiate_all is compiled; nothing runs here.
  static_assert(std::is_class_v<Plain> && std::is_class_v<WithDeleter> && std::is_class_v<NotFirst>);
}
