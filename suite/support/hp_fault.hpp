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

// Sweeps k = 0, 1, ... and checks that every child kept its promise and that the sweep
// reached a k at which the operation needed no failure to be injected.
inline void check_fault_sweep(const std::function<int(std::size_t allowed)>& scenario) {
  const auto trials = fault::fork_sweep(scenario);
  REQUIRE_FALSE(trials.empty());
  MESSAGE("injected a failure at ", trials.size() - 1, " allocation points");
  for (const auto& t : trials) {
    INFO("allowed allocations: ", t.allowed, ", child exit code: ", t.exit_code, "\n", t.output);
    CHECK((t.exit_code == fault::kThrew || t.exit_code == fault::kCompleted));
  }
  CHECK(trials.back().exit_code == fault::kCompleted);
}

}  // namespace saferecl::test
