// <hazard_pointer>
//
// void clear_hazard_pointer_batch(span<hazard_pointer> batch) noexcept;   // C++29 (P3428R4)
//   Effects: for every non-empty element, destroys the hazard pointer it owns (ending its
//   protection epoch) and makes it empty; the empty elements are not changed.
//
// REQUIRES: hp-batch
//
// Relies on: churn being the only portable way to provoke reclamation. That the ended
// epochs let their objects be reclaimed is quality of implementation, checked in aggregate
// form as in saferecl.hp.general/reclamation.eventual.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <array>
#include <span>

using saferecl::test::churn;
using saferecl::test::churn_until;
using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::protected_and_retired;
using saferecl::test::published;

TEST_CASE("saferecl.hp.holder.nonmem/7 B5: clearing empties hazard pointers from make_hazard_pointer, from a batch and empty ones" *
          doctest::test_suite("cxx29.semantic")) {
  std::array<sut::hazard_pointer, 6> mixed;
  std::span<sut::hazard_pointer> from_batch(mixed.data() + 3, 3);
  sut::make_hazard_pointer_batch(from_batch);
  mixed[0] = sut::make_hazard_pointer();
  mixed[1] = sut::make_hazard_pointer();
  // mixed[2] stays empty

  sut::clear_hazard_pointer_batch(mixed);
  for (const auto& h : mixed) CHECK(h.empty());
}

TEST_CASE("saferecl.hp.holder.nonmem/7 B5: clearing a batch leaves other holders' epochs alone" *
          doctest::test_suite("cxx29.semantic")) {
  published x(1);
  sut::hazard_pointer outside = sut::make_hazard_pointer();
  std::array<sut::hazard_pointer, 3> batch;
  sut::make_hazard_pointer_batch(batch);
  hp_object* p = outside.protect(x.src);
  for (auto& h : batch) h.protect(x.src);
  x.unlink_and_retire();

  sut::clear_hazard_pointer_batch(batch);
  CHECK(intact_after_churn(*p));
}

TEST_CASE("saferecl.hp.holder.nonmem/7 B7: clearing an empty span changes nothing" *
          doctest::test_suite("cxx29.semantic")) {
  sut::clear_hazard_pointer_batch({});
  sut::clear_hazard_pointer_batch(std::span<sut::hazard_pointer>());
}

TEST_CASE("saferecl.hp.holder.nonmem/7 B5: qoi: objects whose epochs a clear ended are reclaimed under churn" *
          doctest::test_suite("qoi.semantic")) {
  protected_and_retired set(64);
  churn();
  REQUIRE(set.reclaimed() == 0);
  sut::clear_hazard_pointer_batch(set.holders);
  INFO("reclaimed ", set.reclaimed(), " of ", set.ids.size());
  CHECK(churn_until([&] { return set.all_reclaimed(); }));
}
