// Allocation-failure injection for the `fault` tests.
//
// Executables built from `*.fault.pass.cpp` files link a replacement of the global
// operator new that can be armed, per thread, to fail: `arm(k)` lets k more allocations of
// the calling thread succeed and makes every later one throw std::bad_alloc, until
// `disarm()`. Other threads are unaffected.
//
// `fork_sweep` runs a scenario in a fresh child process (fork) per k, with the first k
// allocations allowed, so that allocations the operation makes -- lazy per-thread setup
// included -- are made to fail, with no state carried between tries. It assumes nothing
// about how many allocations an operation makes (one per batch element is as conforming as
// one per batch): k runs 0, 1, ... densely, then grows geometrically, until a child
// completes with no failure injected. A sweep that runs out of its time budget first has
// found no violation; it says so (out_of_budget), and tests report that as a QoI note,
// never as a failure. The parent must be single-threaded when it calls fork_sweep.
#pragma once

#include "support/child_process.hpp"
#include "support/watchdog.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace saferecl::test::fault {

void arm(std::size_t allowed_allocations) noexcept;
void disarm() noexcept;
// Allocations that failed because of arming, on this thread, since the last arm().
std::size_t injected_failures() noexcept;

// RAII: armed for the scope's duration.
class armed {
 public:
  explicit armed(std::size_t allowed_allocations) noexcept { arm(allowed_allocations); }
  armed(const armed&) = delete;
  armed& operator=(const armed&) = delete;
  ~armed() { disarm(); }
};

// What one child of a sweep reported.
struct trial {
  std::size_t allowed = 0;  // k
  int exit_code = 0;        // the scenario's result (see scenario below), or 128+signal
  std::string output;       // what the child wrote to stderr
};

// The scenario runs in the child with `allowed` allocations permitted. It returns
//   kCompleted  the operation ran to completion without any injected failure;
//   kThrew      the operation reported an injected failure correctly (e.g. threw bad_alloc
//               and left the promised state behind);
// or any other value for a violation (after printing what went wrong to stderr).
inline constexpr int kCompleted = 0;
inline constexpr int kThrew = 10;

// How a sweep chooses its k.
struct sweep_plan {
  std::size_t dense_until = 64;    // every k up to here
  double growth = 1.25;            // then each k is the previous one times this (at least +1)
  std::size_t max_allowed = ~std::size_t{0};  // never beyond this k (0: only k = 0)
  double budget_seconds = 60;      // stop starting children after this long
  // A child without progress for this long of the time it could run is a TIMEOUT
  // (support/child_process.hpp).
  std::chrono::milliseconds child_timeout = child_limit();
};

struct sweep_result {
  std::vector<trial> trials;  // in order of k; the last one ended the sweep
  // The budget (or max_allowed) ran out while every child still met an injected failure
  // and handled it as promised: no evidence of a violation, only of many allocations.
  bool out_of_budget = false;
};

// Runs the scenario for the plan's k until a child completes or reports a violation.
sweep_result fork_sweep(const std::function<int(std::size_t allowed)>& scenario,
                        const sweep_plan& plan = {});

// The next k of a plan after `k`.
std::size_t next_allowed(const sweep_plan& plan, std::size_t k) noexcept;

}  // namespace saferecl::test::fault
