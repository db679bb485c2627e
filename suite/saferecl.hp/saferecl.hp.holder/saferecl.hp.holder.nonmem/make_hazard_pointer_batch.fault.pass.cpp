// <hazard_pointer>
//
// void make_hazard_pointer_batch(span<hazard_pointer> batch);              // C++29 (P3428R4)
//   Effects: ... If an exception is thrown, there are no effects.
//   Throws: bad_alloc if memory for any new hazard pointer could not be allocated.
// void clear_hazard_pointer_batch(span<hazard_pointer> batch) noexcept;    // C++29
//
// REQUIRES: hp-batch
//
// Relies on: the replaced operator new failing from the k-th allocation of the armed
// thread, in a fresh child per k (fault::fork_sweep); the batch may also succeed without
// operator new. The batch is far larger than any per-thread cache, so new hazard pointers
// must be made.
#include "support/test.hpp"
#include "support/hp_checks.hpp"
#include "support/hp_fault.hpp"

#include <cstddef>
#include <new>
#include <thread>
#include <vector>

namespace fault = saferecl::test::fault;
using saferecl::test::bad_alloc_status;
using saferecl::test::check_fault_sweep;
using saferecl::test::churn;
using saferecl::test::completion_status;
using saferecl::test::hp_object;
using saferecl::test::objects;
using saferecl::test::published;
using saferecl::test::violation;

namespace {

constexpr std::size_t kBatch = 300;
constexpr std::size_t kOwning[] = {0, kBatch / 2};  // elements that own before the call

bool protects_still(const hp_object& p) {
  churn();
  return !objects().reclaimed(p.id) && p.alive();
}

int batch_all_or_nothing(std::size_t allowed) {
  std::vector<sut::hazard_pointer> batch(kBatch);
  published x(1), y(2);
  batch[kOwning[0]] = sut::make_hazard_pointer();
  batch[kOwning[1]] = sut::make_hazard_pointer();
  const hp_object* p = batch[kOwning[0]].protect(x.src);
  const hp_object* q = batch[kOwning[1]].protect(y.src);
  x.unlink_and_retire();
  y.unlink_and_retire();

  bool threw = false;
  {
    fault::armed failing(allowed);
    try {
      sut::make_hazard_pointer_batch(batch);
    } catch (const std::bad_alloc&) {
      threw = true;
    } catch (...) {
      return violation("make_hazard_pointer_batch threw something other than bad_alloc");
    }
  }
  std::size_t owning = 0;
  for (const auto& h : batch) owning += h.empty() ? 0 : 1;
  if (threw && owning != 2) return violation("a throwing batch changed which elements own");
  if (!threw && owning != kBatch) return violation("a successful batch left an element empty");
  if (!protects_still(*p) || !protects_still(*q))
    return violation("an element that owned before the call stopped protecting");
  return threw ? bad_alloc_status() : completion_status();
}

int clear_under_failure(std::size_t allowed) {
  std::vector<sut::hazard_pointer> batch(64);
  sut::make_hazard_pointer_batch(batch);
  int status = 0;
  std::thread([&] {  // a thread that did not make them
    fault::armed failing(allowed);
    sut::clear_hazard_pointer_batch(batch);
    status = completion_status();
  }).join();
  for (const auto& h : batch)
    if (!h.empty()) return violation("clear_hazard_pointer_batch left an element owning");
  return status;
}

}  // namespace

TEST_CASE("saferecl.hp.holder.nonmem/5 B3: make_hazard_pointer_batch either succeeds or changes nothing" *
          doctest::test_suite("cxx29.fault")) {
  check_fault_sweep(batch_all_or_nothing);
}

TEST_CASE("saferecl.hp.holder.nonmem/6 B4: make_hazard_pointer_batch reports allocation failure as bad_alloc" *
          doctest::test_suite("cxx29.fault")) {
  // The sweep of B3 already rejects any other exception; here a thread's first call, which
  // may also set up per-thread state. A failure must be reported: a call that returns has
  // made every element owning.
  check_fault_sweep([](std::size_t allowed) {
    int status = 0;
    std::thread([&] {
      std::vector<sut::hazard_pointer> batch(kBatch);
      fault::armed failing(allowed);
      try {
        sut::make_hazard_pointer_batch(batch);
        status = completion_status();
        for (const auto& h : batch)
          if (h.empty()) status = violation("make_hazard_pointer_batch returned and left an element empty");
      } catch (const std::bad_alloc&) {
        status = bad_alloc_status();
      } catch (...) {
        status = violation("make_hazard_pointer_batch threw something other than bad_alloc");
      }
    }).join();
    return status;
  });
}

TEST_CASE("saferecl.hp.holder.nonmem/7 B5: clear_hazard_pointer_batch lets no allocation failure escape" *
          doctest::test_suite("cxx29.fault")) {
  check_fault_sweep(clear_under_failure);
}
