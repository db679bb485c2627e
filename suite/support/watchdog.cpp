#include "support/watchdog.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
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

watchdog::watchdog(std::string what, dump_fn dump, std::chrono::milliseconds limit,
                   progress_fn observed)
    : what_(std::move(what)), dump_(std::move(dump)), observed_(std::move(observed)) {
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

std::uint64_t watchdog::progress_seen() const {
  return rounds_.load(std::memory_order_relaxed) + (observed_ ? observed_() : 0);
}

// Wakes every twentieth of the limit (50 to 500 ms): a sign of life restarts the window, and
// the window ends once the process could run for the whole limit (or at the wall-clock cap).
void watchdog::watch(std::chrono::milliseconds limit) {
  ::pthread_setname_np(::pthread_self(), "saferecl-watch");
  const auto poll = std::clamp<std::chrono::milliseconds>(limit / 20, liveness_clock::kResolution,
                                                          std::chrono::milliseconds(500));
  liveness_clock clock;
  liveness_reading since = clock.now();
  std::uint64_t seen = progress_seen();
  std::unique_lock lock(mutex_);
  while (!disarmed_cv_.wait_for(lock, poll, [this] { return disarmed_; })) {
    if (const std::uint64_t now_seen = progress_seen(); now_seen != seen) {
      seen = now_seen;
      since = clock.now();
      child_progressed();  // a counter watched in a forked child: its parent sees it too
    } else if (clock.expired(since, limit)) {
      report_hang(limit, clock, since);
    }
  }
}

void watchdog::report_hang(std::chrono::milliseconds limit, liveness_clock& clock,
                           const liveness_reading& since) {
  const liveness_reading window = clock.now() - since;
  std::ostringstream report;
  report << exit_status::kTimeoutPrefix << ": watchdog: '" << what_ << "' made no progress for "
         << limit.count() << " ms of the time it could run ("
         << static_cast<long long>(window.wall * 1000) << " ms of wall time"
         << (window.could_run < std::chrono::duration<double>(limit).count()
                 ? ": the wall-clock cap, " + std::to_string(kWallCapFactor) + " x the limit"
                 : std::string())
         << ")\n";
  clock.print_if_starved(report, since, limit);
  report << "[saferecl] evidence:\n";
  clock.print_evidence(report, since);
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
