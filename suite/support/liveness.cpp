#include "support/liveness.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "support/exit_status.hpp"

namespace saferecl::test {
namespace {

// The whole of a small /proc file ("" if it cannot be read: the thread has exited).
std::string read_proc(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buf[512];
  for (ssize_t got; (got = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(got));
  ::close(fd);
  return text;
}

unsigned usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return static_cast<unsigned>(CPU_COUNT(&set));
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1u;
}

double seconds(std::uint64_t ns) { return static_cast<double>(ns) / 1e9; }

// A sample allocates (maps, strings, opendir), and a watchdog thread samples while the test
// forks. The sanitizer runtimes of LLVM 14 do not lock their allocators around fork, so a
// child forked while the watchdog was inside an allocation inherits the allocator's lock
// held and hangs in its first allocation (seen: RS-18 under ASan, the child blocked in a
// futex with no CPU time). So no fork happens during a sample: fork() waits for it to end.
std::mutex& sampling() {
  static std::mutex m;
  static const bool registered = [] {
    ::pthread_atfork([] { m.lock(); }, [] { m.unlock(); }, [] { m.unlock(); });
    return true;
  }();
  (void)registered;
  return m;
}

// The CPU time every process on the machine has used so far (not idle, not waiting for I/O;
// a virtual machine's stolen time counts as used), in seconds.
double machine_busy_seconds() {
  unsigned long long t[8] = {};
  if (std::sscanf(read_proc("/proc/stat").c_str(), "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &t[0], &t[1],
                  &t[2], &t[3], &t[4], &t[5], &t[6], &t[7]) < 4)
    return 0;
  unsigned long long busy = 0;
  for (int i = 0; i < 8; ++i) busy += (i == 3 || i == 4) ? 0 : t[i];  // idle, iowait
  static const double ticks_per_second = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return static_cast<double>(busy) / ticks_per_second;
}

// "blocked (futex_wait_queue)", "running", "runnable, waiting for a CPU", ... from the
// thread's state letter, its kernel wait channel, and what it did in the last interval.
std::string where_is(const std::string& task, std::uint64_t step_on_cpu, std::uint64_t step_waited) {
  const std::string stat = read_proc(task + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return "exited";
  switch (stat[close + 2]) {
    case 'R':
      // A wait is accounted when the thread next runs: no CPU time at all means waiting.
      return step_on_cpu == 0 || step_waited > step_on_cpu ? "runnable, waiting for a CPU" : "running";
    case 'S':
    case 'D': {
      std::string wchan = read_proc(task + "/wchan");
      return wchan.empty() || wchan == "0" ? "blocked" : "blocked (" + wchan + ")";
    }
    case 'T':
    case 't': return "stopped";
    case 'Z': return "exited";
    default: return std::string("state ") + stat[close + 2];
  }
}

std::string thread_name(const std::string& task) {
  std::string comm = read_proc(task + "/comm");
  while (!comm.empty() && comm.back() == '\n') comm.pop_back();
  return comm;
}

}  // namespace

liveness_clock::liveness_clock(owner who)
    : tasks_("/proc/self/task"), cpus_(usable_cpus()),
      uncounted_(who == owner::watches ? static_cast<int>(::gettid()) : 0),
      machine_busy_(machine_busy_seconds()), started_(clock::now()), sampled_(started_) {
  for_each_thread([&](int tid, std::uint64_t on_cpu, std::uint64_t waited) {
    first_[tid] = last_[tid] = {on_cpu, waited};
  });
}

liveness_clock::liveness_clock(pid_t process)
    : tasks_("/proc/" + std::to_string(process) + "/task"), cpus_(usable_cpus()), uncounted_(0),
      machine_busy_(machine_busy_seconds()), started_(clock::now()), sampled_(started_) {
  for_each_thread([&](int tid, std::uint64_t on_cpu, std::uint64_t waited) {
    first_[tid] = last_[tid] = {on_cpu, waited};
  });
}

std::string liveness_clock::task_file(int tid, const char* name) const {
  return tasks_ + "/" + std::to_string(tid) + "/" + name;
}

// Every thread of the process with its schedstat times ("on-CPU-ns waited-ns timeslices").
template <class Visit>
void liveness_clock::for_each_thread(Visit visit) const {
  DIR* dir = ::opendir(tasks_.c_str());
  if (dir == nullptr) return;
  while (const dirent* entry = ::readdir(dir)) {
    const int tid = std::atoi(entry->d_name);
    if (tid <= 0) continue;
    unsigned long long on_cpu = 0, waited = 0;
    if (std::sscanf(read_proc(task_file(tid, "schedstat")).c_str(), "%llu %llu", &on_cpu, &waited) == 2)
      visit(tid, on_cpu, waited);
  }
  ::closedir(dir);
}

liveness_reading liveness_clock::now() {
  if (clock::now() - sampled_ >= kResolution) sample();
  return total_;
}

bool liveness_clock::expired(const liveness_reading& since, std::chrono::milliseconds limit) {
  const liveness_reading window = now() - since;
  const double seconds = std::chrono::duration<double>(limit).count();
  return window.could_run >= seconds || window.wall >= kWallCapFactor * seconds;
}

bool liveness_clock::print_if_starved(std::ostream& os, const liveness_reading& since,
                                      std::chrono::milliseconds limit) {
  const liveness_reading window = now() - since;
  const double seconds = std::chrono::duration<double>(limit).count();
  if (window.could_run >= kEvidenceShare * seconds) return false;
  const auto flags = os.flags();
  const auto precision = os.precision();
  os << exit_status::kStarvedPrefix << std::fixed << std::setprecision(2) << " the process could run "
     << window.could_run << " s of its " << seconds << " s limit in " << window.wall
     << " s of wall time: other load starved it, which is no evidence of a hang\n";
  os.flags(flags);
  os.precision(precision);
  return true;
}

void liveness_clock::sample() {
  const std::lock_guard no_fork_meanwhile(sampling());
  const auto at = clock::now();
  const double wall = std::chrono::duration<double>(at - sampled_).count();
  std::uint64_t on_cpu = 0, waited = 0, watcher_on_cpu = 0;
  std::unordered_map<int, thread_times> current;
  step_.clear();
  for_each_thread([&](int tid, std::uint64_t cpu_ns, std::uint64_t wait_ns) {
    current[tid] = {cpu_ns, wait_ns};
    first_.try_emplace(tid);  // a thread started after the clock: all of its time is new
    const thread_times before = last_.count(tid) != 0 ? last_[tid] : thread_times{};
    const thread_times step{cpu_ns - std::min(cpu_ns, before.on_cpu_ns),
                            wait_ns - std::min(wait_ns, before.waited_ns)};
    step_[tid] = step;
    if (tid == uncounted_) {
      watcher_on_cpu = step.on_cpu_ns;
      return;
    }
    on_cpu += step.on_cpu_ns;
    waited += step.waited_ns;
  });
  for (auto it = first_.begin(); it != first_.end();)
    it = current.count(it->first) != 0 ? std::next(it) : first_.erase(it);
  last_ = std::move(current);

  const double busy = machine_busy_seconds();
  const double others = std::max(0.0, busy - machine_busy_ - seconds(on_cpu + watcher_on_cpu));
  machine_busy_ = busy;
  const double ran = seconds(on_cpu), wanted = std::min(ran + seconds(waited), cpus_ * wall);
  const double denied = wanted > ran ? wall * (wanted - ran) / std::max(wall, wanted) : 0.0;
  const double starved = std::min(denied, wall * std::min(1.0, others / (cpus_ * wall)));
  total_.wall += wall;
  total_.could_run += wall - std::min(wall, starved);
  total_.cpu += ran;
  total_.waited += seconds(waited);
  sampled_ = at;
}

void liveness_clock::print_evidence(std::ostream& os, const liveness_reading& since) {
  sample();
  const liveness_reading w = total_ - since;
  double load[3] = {0, 0, 0};
  std::sscanf(read_proc("/proc/loadavg").c_str(), "%lf %lf %lf", &load[0], &load[1], &load[2]);
  const auto flags = os.flags();
  const auto precision = os.precision();
  os << std::fixed << std::setprecision(2) << "  window without progress: wall " << w.wall
     << " s, could run " << w.could_run << " s ("
     << std::setprecision(0) << (w.wall > 0 ? 100 * w.could_run / w.wall : 100.0)
     << "%); the process ran " << std::setprecision(2) << w.cpu << " s on " << cpus_
     << " CPU(s) and its threads waited " << w.waited << " s runnable for one; load average "
     << load[0] << ' ' << load[1] << ' ' << load[2] << '\n';
  os << "  threads (since the watch began: on a CPU / runnable, waiting):\n";
  // One line a thread; past kListed threads, one line a state with its count.
  constexpr std::size_t kListed = 16;
  const std::map<int, thread_times> sorted(last_.begin(), last_.end());
  const int main_tid = sorted.empty() ? 0 : sorted.begin()->first;  // the oldest thread
  std::map<std::string, std::pair<std::size_t, thread_times>> by_state;
  for (const auto& [tid, times] : sorted) {
    const thread_times base = first_.count(tid) != 0 ? first_[tid] : thread_times{};
    const thread_times step = step_.count(tid) != 0 ? step_[tid] : thread_times{};
    const std::string task = tasks_ + "/" + std::to_string(tid);
    const std::string where = where_is(task, step.on_cpu_ns, step.waited_ns);
    const thread_times mine{times.on_cpu_ns - std::min(times.on_cpu_ns, base.on_cpu_ns),
                            times.waited_ns - std::min(times.waited_ns, base.waited_ns)};
    if (sorted.size() > kListed) {
      auto& [count, sum] = by_state[where];
      ++count;
      sum.on_cpu_ns += mine.on_cpu_ns;
      sum.waited_ns += mine.waited_ns;
      continue;
    }
    os << "    tid " << tid << " " << thread_name(task) << (tid == main_tid ? " (main)" : "")
       << (tid == uncounted_ ? " (the watcher: not counted)" : "") << ": " << where << "; "
       << seconds(mine.on_cpu_ns) << " s / " << seconds(mine.waited_ns) << " s\n";
  }
  for (const auto& [where, group] : by_state)
    os << "    " << group.first << " threads " << where << "; " << seconds(group.second.on_cpu_ns)
       << " s / " << seconds(group.second.waited_ns) << " s in all\n";
  os.flags(flags);
  os.precision(precision);
}

}  // namespace saferecl::test
