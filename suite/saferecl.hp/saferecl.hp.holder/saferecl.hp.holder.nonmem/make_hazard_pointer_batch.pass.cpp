// <hazard_pointer>
//
// void make_hazard_pointer_batch(span<hazard_pointer> batch);   // C++29 (P3428R4)
//   Effects: every empty element of batch comes to own a newly constructed hazard pointer;
//   the non-empty elements are not changed. If an exception is thrown, there are no effects.
//
// REQUIRES: hp-batch
//
// Relies on: churn being the only portable way to provoke reclamation; only
// non-reclamation of protected objects is asserted. The exception path is in
// make_hazard_pointer_batch.fault.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <array>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::published;

TEST_CASE("saferecl.hp.holder.nonmem/5 B2: the empty elements become owning and the owning one keeps its epoch" *
          doctest::test_suite("cxx29.semantic")) {
  published x(1);
  std::array<sut::hazard_pointer, 5> batch;
  batch[2] = sut::make_hazard_pointer();
  hp_object* p = batch[2].protect(x.src);
  x.unlink_and_retire();

  sut::make_hazard_pointer_batch(batch);
  for (const auto& h : batch) CHECK_FALSE(h.empty());
  CHECK(intact_after_churn(*p));

  // Each new element protects an object of its own.
  std::array<published, 4> others{published(10), published(11), published(12), published(13)};
  std::vector<hp_object*> protected_objects;
  std::size_t next = 0;
  for (std::size_t i : {0, 1, 3, 4}) protected_objects.push_back(batch[i].protect(others[next++].src));
  for (auto& other : others) other.unlink_and_retire();
  for (hp_object* q : protected_objects) CHECK(intact_after_churn(*q));
}

TEST_CASE("saferecl.hp.holder.nonmem/5 B6: hazard pointers made by a batch behave like those of make_hazard_pointer" *
          doctest::test_suite("cxx29.semantic")) {
  published w(1), x(2), y(3), z(4);
  std::vector<sut::hazard_pointer> batch(4);
  sut::make_hazard_pointer_batch(batch);

  sut::hazard_pointer moved_out(std::move(batch[0]));
  CHECK(batch[0].empty());
  hp_object* a = moved_out.protect(w.src);

  hp_object* b = x.src.load();
  CHECK(batch[1].try_protect(b, x.src));

  hp_object* c = y.src.load();
  batch[2].reset_protection(c);

  sut::hazard_pointer single = sut::make_hazard_pointer();
  hp_object* d = batch[3].protect(z.src);
  swap(single, batch[3]);

  for (published* o : {&w, &x, &y, &z}) o->unlink_and_retire();
  for (hp_object* o : {a, b, c, d}) CHECK(intact_after_churn(*o));

  batch[1] = sut::hazard_pointer{};  // destroyed on its own; the others stay protected
  for (hp_object* o : {a, c, d}) CHECK(intact_after_churn(*o));
}

TEST_CASE("saferecl.hp.holder.nonmem/5 B7: an empty span and a span with no empty element change nothing" *
          doctest::test_suite("cxx29.semantic")) {
  sut::make_hazard_pointer_batch({});
  sut::make_hazard_pointer_batch(std::span<sut::hazard_pointer>());

  published x(5);
  std::array<sut::hazard_pointer, 2> owning{sut::make_hazard_pointer(), sut::make_hazard_pointer()};
  hp_object* p = owning[0].protect(x.src);
  x.unlink_and_retire();
  sut::make_hazard_pointer_batch(owning);
  CHECK_FALSE(owning[0].empty());
  CHECK_FALSE(owning[1].empty());
  CHECK(intact_after_churn(*p));
}
