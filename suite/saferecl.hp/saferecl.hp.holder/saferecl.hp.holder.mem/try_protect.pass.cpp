// <hazard_pointer>
//
// template<class T> bool try_protect(T*& ptr, const atomic<T*>& src) noexcept;
//   Effects: performs, in order:
//     1. initializes old to ptr;
//     2. evaluates reset_protection(old);
//     3. assigns src.load(memory_order::acquire) to ptr;
//     4. if old != ptr, evaluates reset_protection().
//   Returns: old == ptr.
//
// Relies on: churn being the only portable way to provoke reclamation. Step 4 (a failed
// try_protect leaves the holder unassociated) is visible only as reclamation, so it is
// checked in aggregate form in the qoi tier (reclamation.eventual).
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <atomic>

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::published;

TEST_CASE("saferecl.hp.holder.mem/5 H30: try_protect with an unchanged source returns true and protects" *
          doctest::test_suite("core.semantic")) {
  published x(1);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* ptr = x.src.load();
  hp_object* const before = ptr;

  CHECK(h.try_protect(ptr, x.src));
  CHECK(ptr == before);
  x.unlink_and_retire();
  CHECK(intact_after_churn(*ptr));
  CHECK(ptr->value == 1);
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: try_protect with a changed source returns false and loads the new value" *
          doctest::test_suite("core.semantic")) {
  published stale(1), current(2);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* ptr = stale.src.load();

  CHECK_FALSE(h.try_protect(ptr, current.src));
  CHECK(ptr == current.src.load());
  CHECK_FALSE(h.empty());
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: try_protect after a failure succeeds and protects the reloaded value" *
          doctest::test_suite("core.semantic")) {
  published stale(1), current(2);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* ptr = stale.src.load();
  REQUIRE_FALSE(h.try_protect(ptr, current.src));

  CHECK(h.try_protect(ptr, current.src));
  current.unlink_and_retire();
  CHECK(intact_after_churn(*ptr));
  CHECK(ptr->value == 2);
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: try_protect with null on both sides returns true" *
          doctest::test_suite("core.semantic")) {
  const std::atomic<hp_object*> null_source{nullptr};
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* ptr = nullptr;
  CHECK(h.try_protect(ptr, null_source));
  CHECK(ptr == nullptr);
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: try_protect from a stale null returns false and loads the object" *
          doctest::test_suite("core.semantic")) {
  published x(3);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* ptr = nullptr;
  CHECK_FALSE(h.try_protect(ptr, x.src));
  CHECK(ptr == x.src.load());
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: try_protect of a stale object against a null source returns false and nulls ptr" *
          doctest::test_suite("core.semantic")) {
  published stale(4);
  const std::atomic<hp_object*> null_source{nullptr};
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* ptr = stale.src.load();
  CHECK_FALSE(h.try_protect(ptr, null_source));
  CHECK(ptr == nullptr);
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: a retired object stays protected until a try_protect succeeds on another object" *
          doctest::test_suite("core.semantic")) {
  // The epoch ends only at the successful try_protect (steps 1-2 publish the other
  // object); its eventual reclamation is the qoi tier's (reclamation.eventual).
  published x(1), y(2);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));

  hp_object* other = y.src.load();
  CHECK(h.try_protect(other, y.src));
  y.unlink_and_retire();
  CHECK(intact_after_churn(*other));
}

TEST_CASE("saferecl.hp.holder.mem/5 H30: a retired object stays protected until a try_protect from a null source" *
          doctest::test_suite("core.semantic")) {
  const std::atomic<hp_object*> null_source{nullptr};
  published x(1);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));

  hp_object* none = nullptr;
  CHECK(h.try_protect(none, null_source));
  CHECK(none == nullptr);
  CHECK_FALSE(h.empty());
}
