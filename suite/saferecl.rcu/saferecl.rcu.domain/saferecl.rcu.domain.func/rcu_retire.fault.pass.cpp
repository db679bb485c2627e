// <rcu>
//
// template<class T, class D = default_delete<T>>
//   void rcu_retire(T* p, D d = D(), rcu_domain& dom = rcu_default_domain());
//   Effects: may allocate memory (unspecified whether through operator new); move-
//   initializes d1 from d; schedules the evaluation of d1(p) in dom.
//   Throws: bad_alloc or any exception thrown by the initialization of d1.
//   [Note: if rcu_retire exits via an exception, no evaluation is scheduled. -- end note]
//
// Relies on: the fork sweep failing the k-th allocation of the calling thread for k = 0,
// 1, ... in fresh children; rcu_barrier as the proof that nothing was scheduled; the
// caller freeing p itself after a throw, so that ASan sees a double free or a
// use-after-free if the implementation kept it.
#include "support/fault_injection.hpp"
#include "support/rcu_objects.hpp"
#include "support/test.hpp"

#include <atomic>
#include <cstdio>
#include <new>

namespace fault = saferecl::test::fault;
using saferecl::test::plain_object;
using saferecl::test::within_watchdog;

namespace {

struct counting_delete {
  std::atomic<int>* runs;
  void operator()(plain_object* p) const noexcept {
    runs->fetch_add(1);
    delete p;
  }
};

// One child of the sweep: rcu_retire with `allowed` allocations permitted.
int retire_under_allocation_failure(std::size_t allowed) {
  std::atomic<int> runs{0};
  auto* p = new plain_object(7);
  bool threw = false;
  try {
    fault::armed failing(allowed);
    sut::rcu_retire(p, counting_delete{&runs});
  } catch (const std::bad_alloc&) {
    threw = true;
  } catch (...) {
    std::fputs("[saferecl] rcu_retire threw something other than bad_alloc\n", stderr);
    return 2;
  }
  sut::rcu_barrier();
  if (!threw) {
    if (runs == 1) return fault::kCompleted;
    std::fprintf(stderr, "[saferecl] rcu_retire succeeded; deleter ran %d times\n", runs.load());
    return 3;
  }
  if (runs != 0) {
    std::fputs("[saferecl] rcu_retire threw bad_alloc, yet its deleter ran\n", stderr);
    return 4;
  }
  if (!p->alive() || p->value != 7) {
    std::fputs("[saferecl] rcu_retire threw bad_alloc, yet the object was touched\n", stderr);
    return 5;
  }
  delete p;  // still the caller's
  return fault::kThrew;
}

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/9 R40: rcu_retire under allocation failure throws bad_alloc and schedules nothing, or succeeds" *
          doctest::test_suite("core.fault")) {
  const fault::sweep_result sweep = fault::fork_sweep(&retire_under_allocation_failure);
  REQUIRE_FALSE(sweep.trials.empty());
  for (const auto& trial : sweep.trials) {
    INFO("allowed allocations: " << trial.allowed << ", child output: " << trial.output);
    CHECK((trial.exit_code == fault::kThrew || trial.exit_code == fault::kCompleted));
  }
  if (sweep.out_of_budget)  // many allocations are no violation: a note, not a failure
    MESSAGE("[saferecl] qoi note: the sweep ran out of its time budget at k = "
            << sweep.trials.back().allowed << " with every failure handled as promised");
}

namespace {

struct move_failure {};

// The initialization of d1 (a move) throws; d itself, built in place, never moves.
struct throwing_move_delete {
  explicit throwing_move_delete(std::atomic<int>& r) noexcept : runs(&r) {}
  throwing_move_delete(throwing_move_delete&&) { throw move_failure{}; }
  void operator()(plain_object* p) const noexcept {
    runs->fetch_add(1);
    delete p;
  }
  std::atomic<int>* runs;
};

}  // namespace

TEST_CASE("saferecl.rcu.domain.func/9 R40: a deleter whose move throws makes rcu_retire throw and schedule nothing" *
          doctest::test_suite("core.fault")) {
  std::atomic<int> runs{0};
  auto* p = new plain_object(7);
  bool propagated = false;
  try {
    sut::rcu_retire(p, throwing_move_delete(runs));
  } catch (const move_failure&) {
    propagated = true;
  }
  within_watchdog("rcu_barrier after a failed rcu_retire", [] { sut::rcu_barrier(); });
  CHECK(propagated);
  CHECK(runs == 0);
  if (propagated && runs == 0) {
    CHECK(p->alive());
    delete p;  // still the caller's
  }
}
