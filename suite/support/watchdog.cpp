#include "support/watchdog.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace saferecl::test {

std::chrono::milliseconds default_watchdog_limit() {
  static const std::chrono::milliseconds limit = [] {
    const char* env = std::getenv("SAFERECL_WATCHDOG_SECONDS");
    double seconds = env != nullptr ? std::strtod(env, nullptr) : 60.0;
    if (seconds <= 0) seconds = 60.0;
    return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  }();
  return limit;
}

unsigned child_alarm_seconds() {
  const double half = std::chrono::duration<double>(default_watchdog_limit()).count() / 2;
  return std::max(1u, static_cast<unsigned>(std::ceil(half)));
}

watchdog::watchdog(std::string what, dump_fn dump, std::chrono::milliseconds limit)
    : what_(std::move(what)), dump_(std::move(dump)),
      last_progress_(clock::now().time_since_epoch().count()) {
  thread_ = std::thread([this, limit] { watch(limit); });
}

watchdog::~watchdog() {
  {
    std::lock_guard lock(mutex_);
    disarmed_ = true;
  }
  disarmed_cv_.notify_one();
  thread_.join();
}

void watchdog::progressed() noexcept {
  last_progress_.store(clock::now().time_since_epoch().count(), std::memory_order_relaxed);
}

void watchdog::watch(std::chrono::milliseconds limit) {
  const auto deadline = [&] {
    return clock::time_point(clock::duration(last_progress_.load(std::memory_order_relaxed))) +
           limit;
  };
  std::unique_lock lock(mutex_);
  while (!disarmed_cv_.wait_until(lock, deadline(), [this] { return disarmed_; })) {
    if (deadline() <= clock::now()) report_hang(limit);  // no progress for a whole limit
  }
}

void watchdog::report_hang(std::chrono::milliseconds limit) {
  std::ostringstream report;
  report << exit_status::kTimeoutPrefix << ": watchdog: '" << what_ << "' made no progress for "
         << limit.count() << " ms\n";
  if (dump_) {
    report << "[saferecl] state at timeout:\n";
    dump_(report);
    report << '\n';
  }
  std::fputs(report.str().c_str(), stderr);
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(exit_status::kTimeout);
}

}  // namespace saferecl::test
