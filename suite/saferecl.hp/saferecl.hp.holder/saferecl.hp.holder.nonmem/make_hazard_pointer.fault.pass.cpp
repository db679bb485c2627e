// <hazard_pointer>
//
// hazard_pointer make_hazard_pointer();
//   Throws: may throw bad_alloc if memory for the hazard pointer could not be allocated.
//
// Relies on: the replaced operator new failing from the k-th allocation of the armed
// thread, in a fresh child per k (fault::fork_sweep); make_hazard_pointer may also succeed
// without operator new. A throwing call must leave the hazard_pointer it was to be
// assigned to as it was, and must not break later calls.
#include "support/test.hpp"
#include "support/hp_checks.hpp"
#include "support/hp_fault.hpp"

#include <cstddef>
#include <memory>
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

// A thread's first call, which may also set up per-thread state; then a second call.
int first_call_on_a_fresh_thread(std::size_t allowed) {
  int status = 0;
  std::thread([&] {
    bool threw = false;
    {
      fault::armed failing(allowed);
      try {
        sut::hazard_pointer h = sut::make_hazard_pointer();
        if (h.empty()) status = violation("make_hazard_pointer returned an empty hazard_pointer");
      } catch (const std::bad_alloc&) {
        threw = true;
      } catch (...) {
        status = violation("make_hazard_pointer threw something other than bad_alloc");
      }
      if (status == 0) status = threw ? bad_alloc_status() : completion_status();
    }
    if (threw && sut::make_hazard_pointer().empty())
      status = violation("make_hazard_pointer failed again once memory was available");
  }).join();
  return status;
}

// Many assignments `target = make_hazard_pointer()`, each target protecting a retired
// object: a throwing call must leave its target owning and protecting.
int assignments_keep_their_target(std::size_t allowed) {
  constexpr std::size_t kTargets = 256;  // enough to need new records, whatever is cached
  std::vector<std::unique_ptr<published>> sources;
  std::vector<sut::hazard_pointer> targets(kTargets);
  std::vector<hp_object*> protected_objects;
  for (std::size_t i = 0; i < kTargets; ++i) {
    sources.push_back(std::make_unique<published>(static_cast<int>(i)));
    targets[i] = sut::make_hazard_pointer();
    protected_objects.push_back(targets[i].protect(sources[i]->src));
    sources[i]->unlink_and_retire();
  }

  std::size_t failed_at = kTargets;
  {
    fault::armed failing(allowed);
    for (std::size_t i = 0; i < kTargets && failed_at == kTargets; ++i) {
      try {
        targets[i] = sut::make_hazard_pointer();
      } catch (const std::bad_alloc&) {
        failed_at = i;
      } catch (...) {
        return violation("make_hazard_pointer threw something other than bad_alloc");
      }
    }
  }
  if (failed_at == kTargets) return completion_status();

  if (targets[failed_at].empty()) return violation("the target of a throwing call was emptied");
  churn();
  const hp_object& p = *protected_objects[failed_at];
  if (objects().reclaimed(p.id) || !p.alive())
    return violation("the target of a throwing call stopped protecting its object");
  return bad_alloc_status();
}

}  // namespace

TEST_CASE("saferecl.hp.holder.nonmem/3 H36: a thread's first make_hazard_pointer throws bad_alloc or succeeds" *
          doctest::test_suite("core.fault")) {
  check_fault_sweep(first_call_on_a_fresh_thread);
}

TEST_CASE("saferecl.hp.holder.nonmem/3 H36: make_hazard_pointer that throws leaves the assigned-to hazard_pointer protecting" *
          doctest::test_suite("core.fault")) {
  check_fault_sweep(assignments_keep_their_target);
}
