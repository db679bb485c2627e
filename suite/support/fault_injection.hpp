// Allocation-failure injection for the `fault` tests.
//
// Executables built from `*.fault.pass.cpp` files link a replacement of the global
// operator new that can be armed, per thread, to fail: `arm(k)` lets k more allocations of
// the calling thread succeed and makes every later one throw std::bad_alloc, until
// `disarm()`. Other threads are unaffected.
//
// `fork_sweep` runs a scenario once per k = 0, 1, 2, ... in a fresh child process (fork),
// with the first k allocations allowed, so that every allocation the operation makes -- lazy
// per-thread setup included -- is made to fail once, with no state carried between tries.
// The parent must be single-threaded when it calls fork_sweep.
#pragma once

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

// Runs the scenario for k = 0, 1, ... until a child completes (or `max_allowed` is
// reached); returns every trial. Each child is watched by `timeout_seconds`.
std::vector<trial> fork_sweep(const std::function<int(std::size_t allowed)>& scenario,
                              std::size_t max_allowed = 64, unsigned timeout_seconds = 30);

}  // namespace saferecl::test::fault
