#include "support/watchdog.hpp"

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

watchdog::watchdog(std::string what, dump_fn dump, std::chrono::milliseconds limit)
    : what_(std::move(what)), dump_(std::move(dump)) {
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

void watchdog::watch(std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  if (disarmed_cv_.wait_for(lock, limit, [this] { return disarmed_; })) return;
  std::ostringstream report;
  report << exit_status::kTimeoutPrefix << ": watchdog: '" << what_ << "' did not finish within "
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
