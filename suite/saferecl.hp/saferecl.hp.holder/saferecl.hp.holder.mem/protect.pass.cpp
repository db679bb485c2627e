// <hazard_pointer>
//
// template<class T> T* protect(const atomic<T*>& src) noexcept;
//   Effects: equivalent to
//     T* ptr = src.load(memory_order::relaxed);
//     while (!try_protect(ptr, src)) {}
//     return ptr;
//
// Relies on: churn being the only portable way to provoke reclamation; only
// non-reclamation of protected objects is asserted.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <atomic>

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::published;

TEST_CASE("saferecl.hp.holder.mem/2 H28: protect returns the source's current value and protects it" *
          doctest::test_suite("core.semantic")) {
  published x(1);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* expected = x.src.load();

  hp_object* p = h.protect(x.src);
  CHECK(p == expected);
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));
  CHECK(p->value == 1);
}

TEST_CASE("saferecl.hp.holder.mem/2 H28: protect from a const atomic" *
          doctest::test_suite("core.semantic")) {
  published x(2);
  const std::atomic<hp_object*>& read_only = x.src;
  sut::hazard_pointer h = sut::make_hazard_pointer();

  hp_object* p = h.protect(read_only);
  CHECK(p == x.src.load());
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));
}

TEST_CASE("saferecl.hp.holder.mem/2 H28: protect of a null source returns nullptr and leaves the holder usable" *
          doctest::test_suite("core.semantic")) {
  const std::atomic<hp_object*> null_source{nullptr};
  sut::hazard_pointer h = sut::make_hazard_pointer();
  CHECK(h.protect(null_source) == nullptr);
  CHECK_FALSE(h.empty());

  published x(3);
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));
}

TEST_CASE("saferecl.hp.holder.mem/2 H28: a retired object stays protected until its holder protects a null source" *
          doctest::test_suite("core.semantic")) {
  // The epoch ends only at protect(null_source); the object's eventual reclamation is the
  // qoi tier's (reclamation.eventual).
  const std::atomic<hp_object*> null_source{nullptr};
  published x(3);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));
  CHECK(h.protect(null_source) == nullptr);
}

TEST_CASE("saferecl.hp.holder.mem/2 H28: protecting the next value moves the protection to it" *
          doctest::test_suite("core.semantic")) {
  published x(4), y(5);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  h.protect(x.src);
  hp_object* q = h.protect(y.src);
  CHECK(q->value == 5);
  y.unlink_and_retire();
  CHECK(intact_after_churn(*q));
}

TEST_CASE("saferecl.hp.holder.mem/2 H28: two holders on one object: it survives the end of either epoch" *
          doctest::test_suite("core.semantic")) {
  published x(6);
  sut::hazard_pointer first = sut::make_hazard_pointer();
  sut::hazard_pointer second = sut::make_hazard_pointer();
  hp_object* p = first.protect(x.src);
  CHECK(second.protect(x.src) == p);
  x.unlink_and_retire();

  first.reset_protection();
  CHECK(intact_after_churn(*p));

  // The other way round: re-protecting is not possible after the retire (a new epoch
  // would begin too late), so the second order is shown on a second object.
  published y(7);
  hp_object* q = first.protect(y.src);
  CHECK(second.protect(y.src) == q);
  y.unlink_and_retire();
  second.reset_protection();
  CHECK(intact_after_churn(*q));
}
