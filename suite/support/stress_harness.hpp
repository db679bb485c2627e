// The torture-test harness: the timeline of a run, writer-stall detection, replayable
// failure segments, random delays and rcutorture-style histograms.
//
//   torture t("HX-01");                        // after print_config(...)
//   t.watch("writer 0", writes[0]);             // progress that must keep advancing
//   workers:  while (t.running()) { ...; seg.record({...}); if (bad) t.fail(seg, "poison"); }
//   main:     t.run(scaled(2000ms), dump);      // sleeps, watches progress, then stops
//             t.join(group, dump);              // joins under a watchdog
//             t.settle("final rcu_barrier", [] { sut::rcu_barrier(); });
//             t.summary({...}); t.check();      // counters, then CHECK(no failure)
//
// Stall detection: `run` samples the watched counters every 10 ms; a counter that has not
// advanced for stall_limit() (SAFERECL_STALL_SECONDS, default 2 s) of the time the process
// could run (support/liveness.hpp: a machine busy with other work stretches the window by
// the CPU it takes away; kWallCapFactor x the limit of wall time at most) is a stall: the
// process prints every counter, the window's evidence (wall and could-run time, CPU time,
// runnable waiting, load average, each thread's state), the test's dump and the first
// failure so far, and exits 1 (a stuck writer cannot be joined, so there is nothing else to
// wait for). The epilogue -- joins, final barriers -- runs under a watchdog of
// max(10 s, 5 x stall_limit()) that counts any advance of a watched counter, and any object
// of the suite's log reclaimed, as progress: a final rcu_barrier that is running a backlog of
// deleters is not a hang, whether or not the test counts its deleters itself. Dumps run
// concurrently with the workers: they may read atomics only.
//
// A failure stops the run early (the first one is what matters) and is printed with the
// failing worker's segment: its rng stream, its last kSteps iterations (what it drew and
// what it saw), so that it can be replayed with the printed SAFERECL_SEED.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "support/exit_status.hpp"
#include "support/knobs.hpp"
#include "support/liveness.hpp"
#include "support/object_log.hpp"
#include "support/threads.hpp"
#include "support/watchdog.hpp"

namespace saferecl::test::stress {

using namespace std::chrono_literals;
using clock = std::chrono::steady_clock;
using dump_fn = std::function<void(std::ostream&)>;

// Thread counts grow with the square root of the stress scale (durations grow linearly):
// a 2-core machine gains little from 10x more threads, much from 10x more time.
inline std::size_t threads(std::size_t base) {
  const double n = std::round(static_cast<double>(base) * std::sqrt(stress_scale()));
  return std::max<std::size_t>(base, static_cast<std::size_t>(n));
}

inline std::chrono::milliseconds stall_limit() {
  static const std::chrono::milliseconds limit = [] {
    const char* env = std::getenv("SAFERECL_STALL_SECONDS");
    double seconds = env != nullptr ? std::strtod(env, nullptr) : 2.0;
    if (seconds <= 0) seconds = 2.0;
    return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  }();
  return limit;
}

// A progress counter: bumped by workers, sampled by the monitor.
class alignas(64) progress {
 public:
  void bump(std::uint64_t n = 1) noexcept { v_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t get() const noexcept { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> v_{0};
};

// ----------------------------------------------------------------------------- delays
// A delay drawn from a worker's rng, recorded in its segment and then performed.
struct delay {
  enum class kind : std::uint8_t { none, spin, yield, sleep };
  kind how = kind::none;
  std::uint32_t amount = 0;  // spins, or microseconds of sleep

  void operator()() const {
    switch (how) {
      case kind::none: break;
      case kind::spin:
        for (std::uint32_t i = 0; i < amount; ++i) std::atomic_signal_fence(std::memory_order_seq_cst);
        break;
      case kind::yield: std::this_thread::yield(); break;
      case kind::sleep: std::this_thread::sleep_for(std::chrono::microseconds(amount)); break;
    }
    std::atomic_signal_fence(std::memory_order_seq_cst);  // re-read everything after a delay
  }
  friend std::ostream& operator<<(std::ostream& os, const delay& d) {
    switch (d.how) {
      case kind::none: return os << "none";
      case kind::spin: return os << "spin " << d.amount;
      case kind::yield: return os << "yield";
      case kind::sleep: return os << "sleep " << d.amount << "us";
    }
    return os;
  }
};

// The odds of each kind of delay, tried in this order ("one in N"; 0 = never); otherwise a
// spin of 0..max_spin iterations. The default is rcutorture's reader: usually a short
// spin, sometimes a yield, occasionally 100-300 us, very rarely a millisecond.
struct delay_mix {
  std::uint32_t long_sleep_one_in = 20'000;  // 1 ms
  std::uint32_t sleep_one_in = 2'000;        // 100-300 us
  std::uint32_t yield_one_in = 64;
  std::uint32_t max_spin = 256;
};

inline delay draw(rng& r, const delay_mix& mix = {}) {
  if (mix.long_sleep_one_in != 0 && r.one_in(mix.long_sleep_one_in))
    return {delay::kind::sleep, 1000};
  if (mix.sleep_one_in != 0 && r.one_in(mix.sleep_one_in))
    return {delay::kind::sleep, static_cast<std::uint32_t>(100 + r.below(201))};
  if (mix.yield_one_in != 0 && r.one_in(mix.yield_one_in)) return {delay::kind::yield, 0};
  if (mix.max_spin == 0) return {};
  return {delay::kind::spin, static_cast<std::uint32_t>(r.below(mix.max_spin + 1))};
}

// -------------------------------------------------------------------------- segments
// A worker's last kSteps iterations: what it looked at, the delay it drew, what it saw.
class segment {
 public:
  static constexpr std::size_t kSteps = 16;
  struct step {
    std::uint64_t iteration = 0;
    std::uint64_t object = 0;  // which object / slot / serial the step looked at
    delay waited;
    std::int64_t seen = 0;  // what it observed (an age, a value, a sum)
  };

  segment(std::string who, std::uint64_t stream, std::string_view object_name = "object",
          std::string_view seen_name = "seen")
      : who_(std::move(who)), stream_(stream), object_name_(object_name), seen_name_(seen_name) {}

  void record(const step& s) noexcept { steps_[count_++ % kSteps] = s; }

  void print(std::ostream& os) const {
    os << who_ << " (rng stream " << stream_ << ", seed " << seed() << "), last "
       << std::min<std::uint64_t>(count_, kSteps) << " of " << count_ << " steps:\n";
    const std::uint64_t first = count_ > kSteps ? count_ - kSteps : 0;
    for (std::uint64_t i = first; i < count_; ++i) {
      const step& s = steps_[i % kSteps];
      os << "    iteration " << s.iteration << ": " << object_name_ << "=" << s.object
         << " delay=" << s.waited << " " << seen_name_ << "=" << s.seen << '\n';
    }
  }

 private:
  std::string who_;
  std::uint64_t stream_;
  std::string_view object_name_, seen_name_;
  std::array<step, kSteps> steps_{};
  std::uint64_t count_ = 0;
};

// ------------------------------------------------------------------------- histograms
inline void print_histogram(std::ostream& os, std::string_view name,
                            const std::vector<std::uint64_t>& buckets,
                            std::string_view last_label = "") {
  os << name << ':';
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    os << ' ';
    if (i + 1 == buckets.size() && !last_label.empty()) os << last_label << '=';
    os << buckets[i];
  }
  os << '\n';
}

// Bucket of `v` in a log2 histogram: 0, 1, 2-3, 4-7, ...; the last bucket takes the rest.
inline std::size_t log2_bucket(std::uint64_t v, std::size_t buckets) {
  std::size_t b = 0;
  while (v != 0 && b + 1 < buckets) {
    v >>= 1;
    ++b;
  }
  return b;
}

// --------------------------------------------------------------------------- torture
class torture {
 public:
  explicit torture(std::string name) : name_(std::move(name)) {}
  torture(const torture&) = delete;
  torture& operator=(const torture&) = delete;

  bool running() const noexcept { return !stop_.load(std::memory_order_relaxed); }
  void stop() noexcept { stop_.store(true, std::memory_order_relaxed); }

  // A counter that must advance at least once every stall_limit() while the run lasts.
  void watch(std::string what, const progress& p) { watched_.push_back({std::move(what), &p}); }
  // ... unless `excuse` advances: the ticks of a reader that holds the counter's thread back
  // for longer than the limit, as it may (a region held for seconds blocks a synchronize).
  void watch(std::string what, const progress& p, const progress& excuse) {
    watched_.push_back({std::move(what), &p, &excuse});
  }

  // Records a violation; the first one (with the worker's segment) is kept and ends the run.
  void fail(const segment& s, std::string_view what) {
    std::ostringstream os;
    os << what << "\n  ";
    s.print(os);
    fail(os.str());
  }
  void fail(std::string what) {
    if (failures_.fetch_add(1, std::memory_order_acq_rel) == 0) {
      std::lock_guard lock(mutex_);
      first_failure_ = std::move(what);
    }
    stop();
  }
  std::uint64_t failures() const noexcept { return failures_.load(std::memory_order_acquire); }

  // The main thread's part: lets the workers run for `duration` of the time they could run
  // (or until a failure), checking progress; then stops them. A run starved by other load
  // gets more wall time (at most kWallCapFactor times `duration`), so that it does about the
  // work it does on a quiet machine: checks that need enough work to judge (HX-09's
  // aggregate) keep their strength on a busy one. The run ends only once every watched
  // counter has advanced within the last kQuiet: one that stays quiet becomes a stall, so
  // that a stall beginning near the end is reported as such and not as a hang of the epilogue.
  void run(std::chrono::milliseconds duration, const dump_fn& dump = {}) {
    constexpr auto kQuiet = 100ms;
    const watched_window window(name_ + ": the stress run");
    const auto start = clock::now();
    liveness_clock liveness;
    const liveness_reading began = liveness.now();
    std::vector<std::uint64_t> last(watched_.size());
    std::vector<clock::time_point> since(watched_.size(), start);
    std::vector<liveness_reading> since_could_run(watched_.size(), liveness.now());
    for (std::size_t i = 0; i < watched_.size(); ++i) last[i] = watched_[i].get();
    for (bool quiet = true; running() && (quiet || !liveness.expired(began, duration));) {
      std::this_thread::sleep_for(10ms);
      const auto now = clock::now();
      quiet = false;
      for (std::size_t i = 0; i < watched_.size(); ++i) {
        const std::uint64_t v = watched_[i].get();
        if (v != last[i]) {
          last[i] = v;
          since[i] = now;
          since_could_run[i] = liveness.now();
        } else if (liveness.expired(since_could_run[i], stall_limit())) {
          stalled(watched_[i].what, now - start, liveness, since_could_run[i], dump);
        } else if (now - since[i] >= kQuiet) {
          quiet = true;
        }
      }
    }
    elapsed_ = clock::now() - start;
    could_run_ = std::chrono::duration<double>((liveness.now() - began).could_run);
    stop();
  }

  // Joins the workers; a worker that does not finish within settle_limit() is a hang.
  void join(thread_group& group, const dump_fn& dump = {}) {
    settle("joining the workers", [&] { group.join(); }, dump);
  }

  // Runs a blocking step of the epilogue (a join, the final rcu_barrier) under a watchdog
  // with the same limit: after the run, nothing should take long.
  template <class Step>
  void settle(const std::string& what, Step&& step, const dump_fn& dump = {}) {
    watchdog guard(name_ + ": " + what, [this, &dump](std::ostream& os) {
      print_state(os);
      if (dump) dump(os);
    }, settle_limit(), [this] { return watched_sum() + objects().total_reclaims(); });
    std::forward<Step>(step)();
  }
  static std::chrono::milliseconds settle_limit() {
    return std::max<std::chrono::milliseconds>(10s, 5 * stall_limit());
  }

  std::chrono::duration<double> elapsed() const noexcept { return elapsed_; }

  // "[saferecl] <name> summary: key=value ..." on stderr.
  void summary(std::initializer_list<std::pair<std::string_view, std::string>> items,
               const std::string& extra = "") const {
    std::ostringstream os;
    os << "[saferecl] " << name_ << " summary: ran " << elapsed_.count() << " s (could run "
       << could_run_.count() << " s)";
    for (const auto& [key, value] : items) os << ' ' << key << '=' << value;
    os << " failures=" << failures() << '\n' << extra;
    std::fputs(os.str().c_str(), stderr);
  }

  // The first failure, printed; true when there was none.
  bool passed() const {
    if (failures() == 0) return true;
    std::lock_guard lock(mutex_);
    std::fprintf(stderr, "[saferecl] %s: %llu violation(s); the first:\n  %s\n", name_.c_str(),
                 static_cast<unsigned long long>(failures()), first_failure_.c_str());
    return false;
  }

 private:
  struct watched {
    std::string what;
    const progress* counter;
    const progress* excuse = nullptr;

    std::uint64_t get() const noexcept { return counter->get() + (excuse ? excuse->get() : 0); }
  };

  std::uint64_t watched_sum() const noexcept {
    std::uint64_t sum = 0;
    for (const auto& w : watched_) sum += w.counter->get();
    return sum;
  }

  void print_state(std::ostream& os) const {
    for (const auto& w : watched_) os << "  " << w.what << ": " << w.counter->get() << '\n';
    if (failures() != 0) {
      std::lock_guard lock(mutex_);
      os << "  first failure: " << first_failure_ << '\n';
    }
  }

  [[noreturn]] void stalled(const std::string& what, clock::duration at, liveness_clock& liveness,
                            const liveness_reading& since, const dump_fn& dump) {
    std::ostringstream os;
    os << "[saferecl] " << name_ << ": " << exit_status::kStallMark << " '" << what
       << "' made no progress for "
       << stall_limit().count() << " ms of the time it could run ("
       << static_cast<long long>((liveness.now() - since).wall * 1000) << " ms of wall time; at "
       << std::chrono::duration<double>(at).count() << " s into the run; seed " << seed()
       << ")\n";
    liveness.print_if_starved(os, since, stall_limit());
    os << "[saferecl] evidence:\n";
    liveness.print_evidence(os, since);
    os << "[saferecl] progress counters:\n";
    print_state(os);
    if (dump) {
      os << "[saferecl] state:\n";
      dump(os);
    }
    std::fputs(os.str().c_str(), stderr);
    std::fflush(stderr);
    std::_Exit(exit_status::kFail);
  }

  std::string name_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> failures_{0};
  mutable std::mutex mutex_;
  std::string first_failure_;
  std::vector<watched> watched_;
  std::chrono::duration<double> elapsed_{0};
  std::chrono::duration<double> could_run_{0};  // of elapsed_, not starved by other load
};

inline std::string str(std::uint64_t v) { return std::to_string(v); }

}  // namespace saferecl::test::stress
