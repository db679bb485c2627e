// <hazard_pointer>
//
// hazard_pointer& operator=(hazard_pointer&& other) noexcept;
//   If this == &other, no effect. Otherwise, if *this is not empty, destroys the hazard
//   pointer owned by *this; then *this owns the hazard pointer other owned (or is empty if
//   other was), and other is empty. Returns *this.
//
// Relies on: churn being the only portable way to provoke reclamation; the target's own
// epoch ending is checked in aggregate form by the qoi tier (reclamation.eventual).
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <utility>

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::published;

// `h = std::move(h)` without the compiler's self-move warning: the point is the self-move.
template <class T>
T& same_object(T& x) {
  return x;
}

TEST_CASE("saferecl.hp.holder.ctor/6 H25: move assignment returns *this" *
          doctest::test_suite("core.semantic")) {
  sut::hazard_pointer target;
  sut::hazard_pointer source = sut::make_hazard_pointer();
  CHECK(&(target = std::move(source)) == &target);
  CHECK(&(target = std::move(same_object(target))) == &target);
}

TEST_CASE("saferecl.hp.holder.ctor/5 H25: empty = empty leaves both empty" *
          doctest::test_suite("core.semantic")) {
  sut::hazard_pointer target;
  sut::hazard_pointer source;
  target = std::move(source);
  CHECK(target.empty());
  CHECK(source.empty());
}

TEST_CASE("saferecl.hp.holder.ctor/5 H25: empty = owning takes over the source's epoch" *
          doctest::test_suite("core.semantic")) {
  published x(1);
  sut::hazard_pointer source = sut::make_hazard_pointer();
  hp_object* p = source.protect(x.src);
  sut::hazard_pointer target;

  target = std::move(source);
  CHECK(source.empty());
  CHECK_FALSE(target.empty());
  x.unlink_and_retire();
  CHECK(intact_after_churn(*p));
}

TEST_CASE("saferecl.hp.holder.ctor/5 H25: owning = empty makes the target empty" *
          doctest::test_suite("core.semantic")) {
  sut::hazard_pointer target = sut::make_hazard_pointer();
  sut::hazard_pointer source;
  target = std::move(source);
  CHECK(target.empty());
  CHECK(source.empty());
}

TEST_CASE("saferecl.hp.holder.ctor/5 H25: owning = owning keeps the source's epoch and empties the source" *
          doctest::test_suite("core.semantic")) {
  published x(1), y(2);
  sut::hazard_pointer target = sut::make_hazard_pointer();
  sut::hazard_pointer source = sut::make_hazard_pointer();
  target.protect(x.src);
  hp_object* q = source.protect(y.src);
  y.unlink_and_retire();  // retired before the assignment: the epoch must survive the move

  target = std::move(source);
  CHECK(source.empty());
  CHECK_FALSE(target.empty());
  CHECK(intact_after_churn(*q));
  CHECK(q->value == 2);
}

TEST_CASE("saferecl.hp.holder.ctor/4 H25: self-move of an empty hazard_pointer has no effect" *
          doctest::test_suite("core.semantic")) {
  sut::hazard_pointer h;
  h = std::move(same_object(h));
  CHECK(h.empty());
}

TEST_CASE("saferecl.hp.holder.ctor/4 H25: self-move of an owning hazard_pointer keeps it and its epoch" *
          doctest::test_suite("core.semantic")) {
  published x(3);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();

  h = std::move(same_object(h));
  CHECK_FALSE(h.empty());
  CHECK(intact_after_churn(*p));
  CHECK(p->value == 3);
}
