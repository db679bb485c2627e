// For the RCU `fault` tests (only in *.fault.pass.cpp executables): run a noexcept
// operation in a forked child while every allocation of the calling thread fails.
//
// A noexcept function that lets bad_alloc escape ends the child through std::terminate
// (SIGABRT, reported as 128 + 6); one that copes returns normally and the child reports
// whether the promised state holds afterwards.
//
//   const auto outcome = saferecl::test::with_allocations_failing(
//       [] { sut::rcu_default_domain().lock(); sut::rcu_default_domain().unlock(); },
//       [] { return true; });
//   INFO(outcome.output);
//   CHECK(outcome.exit_code == saferecl::test::fault::kCompleted);
#pragma once

#include <cstdio>

#include "support/fault_injection.hpp"
#include "support/object_log.hpp"

namespace saferecl::test {

// `setup` runs in the child before arming (what the operation needs pending there);
// `operation` runs with no allocation allowed; `holds`, run after disarming, says whether
// the state the operation promised is there. The caller must be single-threaded (fork).
template <class Setup, class Operation, class Holds>
fault::trial with_allocations_failing(Setup setup, Operation operation, Holds holds) {
  (void)graveyard();  // the quarantine allocates on first use: not inside a failing deleter
  fault::sweep_plan only_k0;
  only_k0.max_allowed = 0;
  const fault::sweep_result sweep = fault::fork_sweep(
      [&](std::size_t allowed) {
        setup();
        {
          fault::armed failing(allowed);
          operation();
        }
        if (holds()) return fault::kCompleted;
        std::fputs("[saferecl] the operation returned, but its effect is missing\n", stderr);
        return 1;
      },
      only_k0);
  return sweep.trials.front();
}

template <class Operation, class Holds>
fault::trial with_allocations_failing(Operation operation, Holds holds) {
  return with_allocations_failing([] {}, operation, holds);
}

}  // namespace saferecl::test
