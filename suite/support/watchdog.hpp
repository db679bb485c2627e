// The watchdog: turns a hang into a failure with a state dump and its evidence.
//
// Every blocking step of a test (rcu_synchronize, rcu_barrier, a join, a wait for another
// thread) runs inside a watchdog scope. If the scope makes no progress for its limit, the
// watchdog prints what was being waited for, the evidence (support/liveness.hpp: the window's
// wall time, the time the process could run in it, its CPU time and runnable waiting, the load
// average, where each thread is) and the test's state dump, then ends the process with exit
// code 124 -- reported as TIMEOUT. CTest's own TIMEOUT is the last line of defence for hangs
// outside any scope.
//
// The limit is counted in the time the process could run, not in wall time: a machine busy
// with other work stretches it by the CPU it takes away, and a wall-clock cap of
// kWallCapFactor times the limit still ends a true hang. Progress is whatever the step can
// observe the implementation doing: a scope around a loop (litmus rounds, a chain of
// barriers, waves of threads) calls progressed() once per round, and a scope may also watch a
// counter (deleters run, say), so a barrier draining a backlog is progressing although its
// call has not returned. The limit bounds one step, not a test, and can be short enough that a
// real hang costs seconds, not minutes. A forked child (fork, fault sweeps, fresh processes)
// cannot keep the watchdog's thread; its parent judges it (support/child_process.hpp), and
// in a child each sign of life seen here reaches that parent too.
//
// The gaps between the steps are watched too: while a test case runs (main.cpp arms it for
// every case), a gap watch judges the time during which no window is open (a watchdog scope, a
// stress run: each is a watched_window) by the same limit, so that a hang or a livelock in a
// call that no step covers -- a retire after the workers joined, a destructor -- is a TIMEOUT
// naming the step before it, not a wait for CTest's last-resort timeout.
//
//   SAFERECL_WATCHDOG_SECONDS  seconds without progress (default 60; the driver's quick
//                              profile sets 10, its mutant sweep 3)
//   SAFERECL_REPORT_GAPS_MS    print a test case's longest gap when it reached this many ms
//                              (an audit: work a slower design could stretch past the limit)
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <type_traits>

#include "support/child_process.hpp"
#include "support/exit_status.hpp"
#include "support/liveness.hpp"

namespace saferecl::test {

std::chrono::milliseconds default_watchdog_limit();

// Marks a window of the test as watched for as long as it lives; `what` names it.
class watched_window {
 public:
  explicit watched_window(std::string what);
  watched_window(const watched_window&) = delete;
  watched_window& operator=(const watched_window&) = delete;
  ~watched_window();

 private:
  std::string what_;  // a copy: callers pass temporaries (name + ": the stress run")
};

// The gap watch of one test case (main.cpp): armed at its start, disarmed at its end.
void arm_gap_watch(std::string test_name);
void disarm_gap_watch();
// Around a fork (fork_child()): the watch's thread stops before it (returns whether it ran) and
// starts again after it in the parent, so that a test that is single-threaded forks as a
// single-threaded process (TSan does not watch the child of a multi-threaded one for races) and
// the child has no copy of the watch (its parent judges it).
bool stop_gap_watch_thread();
void restart_gap_watch_thread();

class watchdog {
 public:
  using dump_fn = std::function<void(std::ostream&)>;
  // A count the step's progress shows in (deleters run, say); any change is progress. It is
  // read from the watchdog's thread, so it may read atomics only.
  using progress_fn = std::function<std::uint64_t()>;

  explicit watchdog(std::string what, dump_fn dump = {},
                    std::chrono::milliseconds limit = default_watchdog_limit(),
                    progress_fn observed = {});
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;
  ~watchdog();  // disarms

  // Restarts the limit (and, in a forked child, its parent's: child_progressed()). Called by a
  // loop once per round, from any thread.
  void progressed() noexcept {
    rounds_.fetch_add(1, std::memory_order_relaxed);
    child_progressed();
  }

 private:
  void watch(std::chrono::milliseconds limit);
  std::uint64_t progress_seen() const;
  [[noreturn]] void report_hang(std::chrono::milliseconds limit, liveness_clock& clock,
                                const liveness_reading& since);

  std::string what_;
  dump_fn dump_;
  progress_fn observed_;
  std::mutex mutex_;
  std::condition_variable disarmed_cv_;
  bool disarmed_ = false;
  std::atomic<std::uint64_t> rounds_{0};  // relaxed: only a sign of life
  std::thread thread_;
  watched_window window_{what_};
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
