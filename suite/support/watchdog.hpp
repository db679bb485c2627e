// The watchdog: turns a hang into a failure with a state dump.
//
// Every blocking step of a test (rcu_synchronize, rcu_barrier, a join, a wait for another
// thread) runs inside a watchdog scope. If the scope is still open after its limit, the
// watchdog prints what was being waited for and the test's state dump, then ends the process
// with exit code 124 -- reported as TIMEOUT. CTest's own TIMEOUT is the last line of defence
// for hangs outside any scope.
//
//   SAFERECL_WATCHDOG_SECONDS  default limit (60 s; sanitizers are slow)
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "support/exit_status.hpp"

namespace saferecl::test {

std::chrono::milliseconds default_watchdog_limit();

class watchdog {
 public:
  using dump_fn = std::function<void(std::ostream&)>;

  explicit watchdog(std::string what, dump_fn dump = {},
                    std::chrono::milliseconds limit = default_watchdog_limit());
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;
  ~watchdog();  // disarms

 private:
  void watch(std::chrono::milliseconds limit);

  std::string what_;
  dump_fn dump_;
  std::mutex mutex_;
  std::condition_variable disarmed_cv_;
  bool disarmed_ = false;
  std::thread thread_;
};

// Runs `step` under a watchdog named `what`.
template <class Step>
decltype(auto) within_watchdog(std::string what, Step&& step, watchdog::dump_fn dump = {}) {
  watchdog guard(std::move(what), std::move(dump));
  return std::forward<Step>(step)();
}

}  // namespace saferecl::test
