// Liveness judged on the time a test could run, not on the wall clock.
//
// A hang or a stall is "no progress for N seconds". On a shared machine a correct
// implementation can go N wall seconds without progress only because other processes held
// the CPUs, and the verdict would then measure the machine. The liveness clock counts
// instead the time during which this process got the CPUs its runnable threads asked for
// ("could run"), from what Linux accounts for each thread in /proc/self/task/<tid>/schedstat:
// time on a CPU, and time runnable but waiting for one.
//
// Over a sampling interval of wall time W on C CPUs, the threads ran P thread-seconds and
// waited runnable Q. Alone on the machine they would have run D = min(P + Q, C*W): a wait
// beyond C runnable threads is the test's own oversubscription, not the machine's load. The
// shortfall D - P went to other processes; spread over the threads that wanted a CPU at once
// (max(1, D/W) of them) it is W * (D - P) / max(W, D) of wall time during which the process
// was starved. That overstates it for threads that yield in a loop (a yield is accounted as
// waiting, and a yielder on a busy machine waits behind everyone), so the starved time S is
// at most the share of the machine other processes used (/proc/stat's busy time less P, over
// C*W) times W. The clock advances by W - S:
//   - a blocked hang (every thread asleep): P, Q ~ 0, S ~ 0: the clock keeps wall speed;
//   - a livelock on a quiet machine: P = D, or no other process ran: S = 0, wall speed;
//   - threads starved by other load: the clock slows by the share they were denied, never
//     by more than the others took.
// So a hang and a livelock are judged on a quiet machine exactly as by the wall clock, and a
// busy machine gets more wall time only in proportion to the CPU it took away. The kernel
// accounts a wait when the thread next runs, so a sample lags by one scheduling latency
// (milliseconds); a judgment also has a wall-clock cap, kWallCapFactor times its limit,
// so that a true hang ends even when the accounting says the process was always starved.
//
// A clock is not thread-safe: each watcher (a watchdog's thread, a stress run's monitor)
// owns one, and leaves its own thread out of the account: a watcher that wakes every few
// milliseconds waits for a CPU at each wake-up on a busy machine, which says nothing of the
// threads it watches (a blocked hang would look starved). A thread that works and times
// itself (a loop of barriers) counts itself. The clock samples /proc at most once per
// kResolution, and only the threads alive then: a thread that starts and ends between two
// samples is not seen. Between samples now() returns the last reading.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <unordered_map>

namespace saferecl::test {

// A judgment of liveness ends at the latest after this many times its limit in wall time.
inline constexpr int kWallCapFactor = 10;
// A window that only the cap ended is evidence only if the process could run this share of
// the limit in it; otherwise it was starved (print_if_starved). On a 2-core machine beside 8
// spinning processes a test with yielding or sleeping threads could run 3-10% of the wall
// time (measured 2026-12-06): at the cap that is 30-100% of the limit.
inline constexpr double kEvidenceShare = 0.25;

// Totals since the clock started, in seconds; a window is the difference of two readings.
struct liveness_reading {
  double wall = 0;       // wall time
  double could_run = 0;  // of which the process was not starved by other load
  double cpu = 0;        // thread-seconds on a CPU
  double waited = 0;     // thread-seconds runnable, waiting for a CPU

  friend liveness_reading operator-(const liveness_reading& a, const liveness_reading& b) {
    return {a.wall - b.wall, a.could_run - b.could_run, a.cpu - b.cpu, a.waited - b.waited};
  }
};

class liveness_clock {
 public:
  static constexpr std::chrono::milliseconds kResolution{50};

  enum class owner { watches, works };  // does the thread that makes the clock count?

  explicit liveness_clock(owner who = owner::watches);
  // The clock of another process (a forked child its parent watches): all of its threads count.
  explicit liveness_clock(pid_t process);

  // The totals now (sampled at most once per kResolution).
  liveness_reading now();

  // True when a window that began at `since` has lasted `limit` of could-run time, or
  // kWallCapFactor times `limit` of wall time.
  bool expired(const liveness_reading& since, std::chrono::milliseconds limit);

  // After expired(): true when it was the wall-clock cap and the process could run less than
  // kEvidenceShare of `limit` in the window -- other load starved it, and the window is no evidence.
  // Then prints exit_status::kStarvedPrefix's line, which the reports judge INCONCLUSIVE.
  bool print_if_starved(std::ostream& os, const liveness_reading& since, std::chrono::milliseconds limit);

  // The evidence of a window without progress that began at `since`: its wall time, the
  // time the process could run, CPU time and runnable waiting in it, the CPUs and the load
  // average, and where each thread is (blocked and in which kernel wait, running, or
  // runnable), with its CPU and waiting since the clock started. One line each, indented.
  void print_evidence(std::ostream& os, const liveness_reading& since);

 private:
  struct thread_times {
    std::uint64_t on_cpu_ns = 0;
    std::uint64_t waited_ns = 0;
  };
  using clock = std::chrono::steady_clock;

  void sample();
  template <class Visit>
  void for_each_thread(Visit visit) const;
  std::string task_file(int tid, const char* name) const;

  std::string tasks_;  // /proc/<process>/task
  unsigned cpus_;
  int uncounted_;  // the watcher's thread id, or 0
  double machine_busy_;  // CPU-seconds every process had used at the last sample (/proc/stat)
  clock::time_point started_, sampled_;
  liveness_reading total_;
  std::unordered_map<int, thread_times> first_;  // at the clock's start (0: a newer thread)
  std::unordered_map<int, thread_times> last_;   // at the last sample
  std::unordered_map<int, thread_times> step_;   // during the last sampling interval
};

}  // namespace saferecl::test
