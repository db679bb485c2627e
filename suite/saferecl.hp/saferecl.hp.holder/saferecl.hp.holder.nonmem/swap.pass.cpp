// <hazard_pointer>
//
// void swap(hazard_pointer& a, hazard_pointer& b) noexcept;
//   Effects: equivalent to a.swap(b).
//
// Relies on: churn being the only portable way to provoke reclamation; objects are retired
// while the swapped ownership is in place, and only non-reclamation is asserted.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <utility>

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::published;

// Swaps a holder protecting x with one protecting y through `swap_fn`, retires both objects
// during the swapped ownership and checks that both epochs survived; then swaps with an
// empty holder.
template <class Swap>
void check_swap_keeps_epochs(Swap swap_fn) {
  published x(1), y(2);
  sut::hazard_pointer a = sut::make_hazard_pointer();
  sut::hazard_pointer b = sut::make_hazard_pointer();
  hp_object* p = a.protect(x.src);
  hp_object* q = b.protect(y.src);

  swap_fn(a, b);
  x.unlink_and_retire();
  y.unlink_and_retire();
  CHECK(intact_after_churn(*p));
  CHECK(intact_after_churn(*q));

  a.reset_protection();  // `a` owns y's hazard pointer now; x stays protected by `b`
  CHECK(intact_after_churn(*p));

  sut::hazard_pointer empty;
  swap_fn(b, empty);
  CHECK(b.empty());
  CHECK_FALSE(empty.empty());
  CHECK(intact_after_churn(*p));
}

TEST_CASE("saferecl.hp.holder.nonmem/4 H37: swap found by argument-dependent lookup keeps both epochs" *
          doctest::test_suite("core.semantic")) {
  check_swap_keeps_epochs([](sut::hazard_pointer& a, sut::hazard_pointer& b) {
    using std::swap;
    swap(a, b);
  });
}

TEST_CASE("saferecl.hp.holder.nonmem/4 H37: the qualified non-member swap keeps both epochs" *
          doctest::test_suite("core.semantic")) {
  check_swap_keeps_epochs([](sut::hazard_pointer& a, sut::hazard_pointer& b) { sut::swap(a, b); });
}

TEST_CASE("saferecl.hp.holder.nonmem/4 H37: std::ranges::swap keeps both epochs" *
          doctest::test_suite("core.semantic")) {
  check_swap_keeps_epochs([](sut::hazard_pointer& a, sut::hazard_pointer& b) { std::ranges::swap(a, b); });
}
