#include "support/child_process.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <sstream>

#include "support/exit_status.hpp"
#include "support/liveness.hpp"
#include "support/watchdog.hpp"

namespace saferecl::test {
namespace {

// The signs of life of every child below this process: mapped before any fork, so the test's
// process and all of its descendants share it.
std::atomic<std::uint64_t>& shared_progress() {
  static std::atomic<std::uint64_t>* const counter = [] {
    void* page = ::mmap(nullptr, sizeof(std::atomic<std::uint64_t>), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) std::abort();
    return ::new (page) std::atomic<std::uint64_t>(0);
  }();
  return *counter;
}
[[maybe_unused]] const bool g_mapped_at_start = (shared_progress(), true);

// Set in the child right after fork_child()'s fork, before it starts any thread.
bool g_forked_child = false;

std::uint64_t progress_seen() noexcept { return shared_progress().load(std::memory_order_relaxed); }

// Prints the evidence of a child without progress, kills it and ends this process as TIMEOUT.
[[noreturn]] void time_out(pid_t child, std::chrono::milliseconds limit, liveness_clock& clock,
                           const liveness_reading& since, const std::string& output) {
  const liveness_reading window = clock.now() - since;
  std::ostringstream os;
  os << output << exit_status::kTimeoutPrefix << exit_status::kForkedChildMark << ' ' << child << " made no progress for "
     << limit.count() << " ms of the time it could run (" << static_cast<long long>(window.wall * 1000)
     << " ms of wall time" << (window.could_run < std::chrono::duration<double>(limit).count()
                                    ? ": the wall-clock cap, " + std::to_string(kWallCapFactor) + " x the limit"
                                    : std::string())
     << "): killed\n";
  clock.print_if_starved(os, since, limit);
  os << "[saferecl] evidence (the child's threads):\n";
  clock.print_evidence(os, since);
  ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  std::fputs(os.str().c_str(), stderr);
  std::fflush(nullptr);
  std::_Exit(exit_status::kTimeout);
}

}  // namespace

std::chrono::milliseconds child_limit() { return default_watchdog_limit() / 2; }

pid_t fork_child() {
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const bool gaps_watched = stop_gap_watch_thread();
  const pid_t pid = ::fork();
  if (pid != 0) {
    if (gaps_watched) restart_gap_watch_thread();
    return pid;
  }
  g_forked_child = true;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) std::_Exit(exit_status::kTimeout);  // it died before the prctl
  return 0;
}

void child_progressed() noexcept {
  if (g_forked_child) shared_progress().fetch_add(1, std::memory_order_relaxed);
}

child_end wait_for_child(pid_t child, int output_fd, std::chrono::milliseconds limit, watchdog* waiting) {
  constexpr int kPollMs = 20;
  const watched_window window("waiting for a forked child");  // which is judged here
  child_end end;
  liveness_clock clock(child);
  liveness_reading since = clock.now();
  std::uint64_t seen = progress_seen();
  for (;;) {
    if (output_fd >= 0) {
      pollfd readable{output_fd, POLLIN, 0};
      if (::poll(&readable, 1, kPollMs) > 0) {
        char buf[4096];
        const ssize_t got = ::read(output_fd, buf, sizeof buf);
        if (got > 0) end.output.append(buf, static_cast<std::size_t>(got));
        else if (got == 0 || errno != EINTR) output_fd = -1;  // end of file
        continue;  // drain what is there before looking at the child
      }
    } else {
      ::usleep(kPollMs * 1000);
    }
    const pid_t done = ::waitpid(child, &end.status, WNOHANG);
    if (done == child || (done < 0 && errno != EINTR)) break;
    if (const std::uint64_t now_seen = progress_seen(); now_seen != seen) {
      seen = now_seen;
      since = clock.now();
    } else if (clock.expired(since, limit)) {
      time_out(child, limit, clock, since, end.output);
    }
    if (waiting != nullptr) waiting->progressed();
  }
  if (output_fd >= 0) {  // the rest of what it wrote
    char buf[4096];
    for (ssize_t got; (got = ::read(output_fd, buf, sizeof buf)) > 0;)
      end.output.append(buf, static_cast<std::size_t>(got));
  }
  if (WIFEXITED(end.status) && WEXITSTATUS(end.status) == exit_status::kTimeout) {
    std::fputs(end.output.c_str(), stderr);
    std::fprintf(stderr, "%s%s %d timed out (above)\n", exit_status::kTimeoutPrefix, exit_status::kForkedChildMark,
                 static_cast<int>(child));
    std::fflush(nullptr);
    std::_Exit(exit_status::kTimeout);
  }
  return end;
}

}  // namespace saferecl::test
