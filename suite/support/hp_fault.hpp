// Allocation-failure sweeps for the saferecl.hp fault tests (only in *.fault.pass.cpp).
//
// A scenario runs in a forked child with the first k allocations of one thread allowed
// (support/fault_injection.hpp). It reports through its exit status:
//   kCompleted  no injected failure was needed: the sweep has passed every allocation
//   kThrew      an injected failure happened and was handled as promised
//   anything else (after a message on stderr), or a signal: a violation
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdio>
#include <functional>

#include "support/fault_injection.hpp"

namespace saferecl::test {

// The status of a scenario whose operation returned normally: did it meet a failure?
inline int completion_status() noexcept {
  return fault::injected_failures() > 0 ? fault::kThrew : fault::kCompleted;
}

// A violation, with what went wrong on stderr (the parent shows the child's stderr).
inline int violation(const char* what) noexcept {
  std::fprintf(stderr, "[saferecl] violation: %s\n", what);
  return 1;
}

// The status of a scenario whose operation threw bad_alloc: a reported failure if one of
// its allocations was made to fail, otherwise a violation (memory was there). This keeps
// the sweep's end from resting on a count: an operation that throws without cause is
// caught at every k, however long the sweep.
inline int bad_alloc_status() noexcept {
  if (fault::injected_failures() > 0) return fault::kThrew;
  return violation("threw bad_alloc although no allocation was made to fail");
}

// Sweeps k (fault::fork_sweep) and checks that every child kept its promise. A sweep that
// reached a k at which the operation needed no injected failure is complete; one that ran
// out of its time budget first is a QoI note (the operation allocates a lot), not a
// failure: only a broken promise is evidence against the implementation.
inline void check_fault_sweep(const std::function<int(std::size_t allowed)>& scenario) {
  const fault::sweep_result sweep = fault::fork_sweep(scenario);
  REQUIRE_FALSE(sweep.trials.empty());
  MESSAGE("injected a failure at ", sweep.trials.size() - (sweep.out_of_budget ? 0 : 1),
          " allocation points (k up to ", sweep.trials.back().allowed, ")");
  for (const auto& t : sweep.trials) {
    INFO("allowed allocations: ", t.allowed, ", child exit code: ", t.exit_code, "\n", t.output);
    CHECK((t.exit_code == fault::kThrew || t.exit_code == fault::kCompleted));
  }
  if (sweep.out_of_budget)
    MESSAGE("[saferecl] qoi note: the sweep ran out of its time budget at k = ",
            sweep.trials.back().allowed,
            " with every failure handled as promised; allocation points beyond it are untested");
}

}  // namespace saferecl::test
