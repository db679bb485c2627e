#include "support/watchdog.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <sstream>
#include <utility>

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

// ------------------------------------------------------------------------------ gap watch
namespace {

std::atomic<int> g_open_windows{0};
std::atomic<std::uint64_t> g_window_events{0};  // any open or close restarts the gap

struct gap_watch {
  std::mutex mutex;
  std::condition_variable disarmed_cv;
  bool disarmed = true;
  std::string test;
  std::thread thread;
  // Held only to copy the name: a forked child (whose copy of it may be locked) skips it.
  std::mutex name_mutex;
  std::string last_window = "the test's start";
};

gap_watch& gaps() {
  static gap_watch g;
  return g;
}

[[noreturn]] void report_gap(std::chrono::milliseconds limit, liveness_clock& clock,
                             const liveness_reading& since, const std::string& test,
                             const std::string& after) {
  const liveness_reading window = clock.now() - since;
  std::ostringstream report;
  report << exit_status::kTimeoutPrefix << ": watchdog: '" << test
         << ": between steps, after \"" << after << "\"' made no progress for "
         << limit.count() << " ms of the time it could run ("
         << static_cast<long long>(window.wall * 1000) << " ms of wall time)\n";
  clock.print_if_starved(report, since, limit);
  report << "[saferecl] evidence:\n";
  clock.print_evidence(report, since);
  std::fputs(report.str().c_str(), stderr);
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(exit_status::kTimeout);
}

// SAFERECL_REPORT_GAPS_MS=N: a test case's longest gap, when it reached N ms of the time the
// process could run, is printed at the case's end (finding the work a slower design would
// stretch past the limit; nothing is judged by it).
double gap_report_seconds() {
  static const double seconds = [] {
    const char* env = std::getenv("SAFERECL_REPORT_GAPS_MS");
    return env != nullptr ? std::atof(env) / 1000 : 0.0;
  }();
  return seconds;
}

void watch_gaps(std::chrono::milliseconds limit) {
  ::pthread_setname_np(::pthread_self(), "saferecl-gaps");
  gap_watch& g = gaps();
  const auto poll = std::clamp<std::chrono::milliseconds>(limit / 20, liveness_clock::kResolution,
                                                          std::chrono::milliseconds(500));
  liveness_clock clock;
  liveness_reading since = clock.now();
  std::uint64_t seen = g_window_events.load(std::memory_order_acquire);
  double longest = 0;
  std::string longest_after;
  std::unique_lock lock(g.mutex);
  while (!g.disarmed_cv.wait_for(lock, poll, [&g] { return g.disarmed; })) {
    const std::uint64_t events = g_window_events.load(std::memory_order_acquire);
    if (events != seen || g_open_windows.load(std::memory_order_acquire) > 0) {
      seen = events;
      since = clock.now();
    } else if (clock.expired(since, limit)) {
      std::lock_guard name_lock(g.name_mutex);
      report_gap(limit, clock, since, g.test, g.last_window);
    } else if (gap_report_seconds() > 0) {
      if (const double gap = (clock.now() - since).could_run; gap > longest) {
        longest = gap;
        std::lock_guard name_lock(g.name_mutex);
        longest_after = g.last_window;
      }
    }
  }
  if (gap_report_seconds() > 0 && longest >= gap_report_seconds())
    std::fprintf(stderr, "[saferecl] longest gap: %.0f ms of could-run time, after \"%s\" (%s)\n", longest * 1000,
                 longest_after.c_str(), g.test.c_str());
}

}  // namespace

watched_window::watched_window(std::string what) : what_(std::move(what)) {
  g_open_windows.fetch_add(1, std::memory_order_acq_rel);
  g_window_events.fetch_add(1, std::memory_order_acq_rel);
}

watched_window::~watched_window() {
  gap_watch& g = gaps();
  if (std::unique_lock name_lock(g.name_mutex, std::try_to_lock); name_lock.owns_lock())
    g.last_window = what_;
  g_open_windows.fetch_sub(1, std::memory_order_acq_rel);
  g_window_events.fetch_add(1, std::memory_order_acq_rel);
}

void arm_gap_watch(std::string test_name) {
  gap_watch& g = gaps();
  {
    std::lock_guard lock(g.mutex);
    g.disarmed = false;
    g.test = std::move(test_name);
  }
  {
    std::lock_guard name_lock(g.name_mutex);
    g.last_window = "the test's start";
  }
  restart_gap_watch_thread();
}

void disarm_gap_watch() { stop_gap_watch_thread(); }

bool stop_gap_watch_thread() {
  gap_watch& g = gaps();
  if (!g.thread.joinable()) return false;
  {
    std::lock_guard lock(g.mutex);
    g.disarmed = true;
  }
  g.disarmed_cv.notify_one();
  g.thread.join();
  return true;
}

void restart_gap_watch_thread() {
  gap_watch& g = gaps();
  {
    std::lock_guard lock(g.mutex);
    g.disarmed = false;
  }
  g.thread = std::thread([limit = default_watchdog_limit()] { watch_gaps(limit); });
}

}  // namespace saferecl::test
