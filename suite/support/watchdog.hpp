// The watchdog: turns a hang into a failure with a state dump.
//
// Every blocking step of a test (rcu_synchronize, rcu_barrier, a join, a wait for another
// thread) runs inside a watchdog scope. If the scope makes no progress for its limit, the
// watchdog prints what was being waited for and the test's state dump, then ends the process
// with exit code 124 -- reported as TIMEOUT. CTest's own TIMEOUT is the last line of defence
// for hangs outside any scope.
//
// The limit bounds one step, not a test: a scope around a loop (litmus rounds, a chain of
// barriers, waves of threads) calls progressed() once per round, so a loop that is slow
// under load but moving is never a hang, and the limit can be short enough that a real hang
// costs seconds, not minutes. A child process (fork, fault sweeps) cannot keep the watchdog's
// thread; it arms alarm(child_alarm_seconds()) instead, half the limit, so that it dies (a
// FAIL that names the signal) before the watchdog of the parent waiting for it.
//
//   SAFERECL_WATCHDOG_SECONDS  seconds without progress (default 60; the driver's quick
//                              profile sets 10, its mutant sweep 3)
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <type_traits>

#include "support/exit_status.hpp"

namespace saferecl::test {

std::chrono::milliseconds default_watchdog_limit();

// The alarm() of a child process: half the watchdog's limit, at least one second.
unsigned child_alarm_seconds();

class watchdog {
 public:
  using dump_fn = std::function<void(std::ostream&)>;

  explicit watchdog(std::string what, dump_fn dump = {},
                    std::chrono::milliseconds limit = default_watchdog_limit());
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;
  ~watchdog();  // disarms

  // Restarts the limit. Called by a loop once per round, from any thread.
  void progressed() noexcept;

 private:
  using clock = std::chrono::steady_clock;

  void watch(std::chrono::milliseconds limit);
  [[noreturn]] void report_hang(std::chrono::milliseconds limit);

  std::string what_;
  dump_fn dump_;
  std::mutex mutex_;
  std::condition_variable disarmed_cv_;
  bool disarmed_ = false;
  std::atomic<clock::rep> last_progress_;  // clock ticks; relaxed: only a deadline hint
  std::thread thread_;
};

// Runs `step` under a watchdog named `what`. A step that loops takes the watchdog as its
// argument and calls progressed() once per round.
template <class Step>
decltype(auto) within_watchdog(std::string what, Step&& step, watchdog::dump_fn dump = {}) {
  watchdog guard(std::move(what), std::move(dump));
  if constexpr (std::is_invocable_v<Step, watchdog&>)
    return std::forward<Step>(step)(guard);
  else
    return std::forward<Step>(step)();
}

}  // namespace saferecl::test
