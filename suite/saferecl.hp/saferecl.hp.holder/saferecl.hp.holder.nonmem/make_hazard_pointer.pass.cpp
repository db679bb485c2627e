// <hazard_pointer>
//
// hazard_pointer make_hazard_pointer();
//   Effects: constructs a hazard pointer.
//   Returns: a hazard_pointer object that owns the newly-constructed hazard pointer.
//   Throws: may throw bad_alloc if memory for the hazard pointer could not be allocated.
//
// Relies on: churn being the only portable way to provoke reclamation. The number of
// hazard pointers is limited only by memory, so 1000 at once must work; the allocation
// failure path is in make_hazard_pointer.fault.
#include "support/test.hpp"
#include "support/hp_checks.hpp"

#include <cstddef>
#include <memory>
#include <vector>

using saferecl::test::hp_object;
using saferecl::test::intact_after_churn;
using saferecl::test::objects;
using saferecl::test::published;

TEST_CASE("saferecl.hp.holder.nonmem/2 H36: make_hazard_pointer returns an owning hazard_pointer" *
          doctest::test_suite("core.semantic")) {
  sut::hazard_pointer h = sut::make_hazard_pointer();
  CHECK_FALSE(h.empty());
}

TEST_CASE("saferecl.hp.holder.nonmem/1 H36: 1000 hazard pointers alive at once each protect their own object" *
          doctest::test_suite("core.semantic")) {
  constexpr std::size_t kHolders = 1000;
  std::vector<std::unique_ptr<published>> sources;
  std::vector<sut::hazard_pointer> holders;
  std::vector<hp_object*> protected_objects;
  // A design that scans every slot on each retire makes these loops quadratic: each round is
  // progress, so only a call that stops returning is a TIMEOUT.
  saferecl::test::within_watchdog("1000 holders protect, then their objects are retired",
                                  [&](saferecl::test::watchdog& dog) {
    for (std::size_t i = 0; i < kHolders; ++i) {
      sources.push_back(std::make_unique<published>(static_cast<int>(i)));
      holders.push_back(sut::make_hazard_pointer());
      protected_objects.push_back(holders.back().protect(sources.back()->src));
      dog.progressed();
    }
    for (auto& x : sources) {
      x->unlink_and_retire();
      dog.progressed();
    }
  });

  saferecl::test::churn();
  std::size_t damaged = 0;
  for (std::size_t i = 0; i < kHolders; ++i) {
    const hp_object& p = *protected_objects[i];
    if (objects().reclaimed(p.id) || !p.alive() || p.value != static_cast<int>(i)) ++damaged;
  }
  CHECK(damaged == 0);
}
