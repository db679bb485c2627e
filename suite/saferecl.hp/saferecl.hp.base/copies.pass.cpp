// <hazard_pointer>
//
// template<class T, class D = default_delete<T>> class hazard_pointer_obj_base {
// protected:
//   hazard_pointer_obj_base(const hazard_pointer_obj_base&) = default;
//   hazard_pointer_obj_base(hazard_pointer_obj_base&&) = default;
//   hazard_pointer_obj_base& operator=(const hazard_pointer_obj_base&) = default;
//   hazard_pointer_obj_base& operator=(hazard_pointer_obj_base&&) = default;
// };
//
// Relies on: a copy being a new object that has not been retired (retirement is a property
// of an object, not of its value), and on reading a retired object only while protecting
// it. Churn is the only portable way to provoke reclamation.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::objects;
using saferecl::test::published;

// Protects every object through its own holder, retires them all, and checks that each is
// intact after churn and still holds `value`.
void check_each_retires_on_its_own(std::span<published* const> sources, int value) {
  std::vector<sut::hazard_pointer> holders;
  std::vector<hp_object*> protected_objects;
  for (published* source : sources) {
    holders.push_back(sut::make_hazard_pointer());
    protected_objects.push_back(holders.back().protect(source->src));
  }
  for (published* source : sources) source->unlink_and_retire();
  for (hp_object* p : protected_objects) {
    CHECK(intact_after_churn(*p));
    CHECK(p->value == value);
  }
}

TEST_CASE("saferecl.hp.base H12: copies and moves of a live object are objects of their own" *
          doctest::test_suite("core.semantic")) {
  published original(1);
  hp_object& x = *original.src.load();  // not retired yet: the test still owns it
  published copy_constructed(new hp_object(x));
  published copy_assigned(0);
  *copy_assigned.src.load() = x;
  // hp_object's members copy on a move, so x keeps its value for the second move.
  published move_assigned(0);
  *move_assigned.src.load() = std::move(x);
  published move_constructed(new hp_object(std::move(x)));

  published* const all[] = {&original, &copy_constructed, &copy_assigned, &move_assigned,
                            &move_constructed};
  check_each_retires_on_its_own(all, 1);
  CHECK(objects().repeated_reclaims() == 0);
}

TEST_CASE("saferecl.hp.base H12: copies of a retired, protected object are objects of their own" *
          doctest::test_suite("core.semantic")) {
  published x(2);
  sut::hazard_pointer h = sut::make_hazard_pointer();
  hp_object* p = h.protect(x.src);
  x.unlink_and_retire();

  published copy_constructed(new hp_object(*p));
  published copy_assigned(0);
  *copy_assigned.src.load() = *p;  // carries the value, not the retirement

  published* const copies[] = {&copy_constructed, &copy_assigned};
  check_each_retires_on_its_own(copies, 2);
  CHECK(intact_after_churn(*p));
  CHECK(objects().repeated_reclaims() == 0);
}
