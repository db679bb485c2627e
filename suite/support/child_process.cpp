#include "support/child_process.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "support/liveness.hpp"
#include "support/watchdog.hpp"

namespace saferecl::test {

std::chrono::milliseconds child_limit() { return default_watchdog_limit() / 2; }

void arm_child_alarm() {
  const double cap = kWallCapFactor * std::chrono::duration<double>(child_limit()).count();
  ::alarm(static_cast<unsigned>(std::ceil(std::max(1.0, cap))));
}

child_end wait_for_child(pid_t child, int output_fd, std::chrono::milliseconds limit, watchdog* waiting) {
  constexpr int kPollMs = 20;
  child_end end;
  liveness_clock clock(child);
  const liveness_reading start = clock.now();
  bool alarmed = false;
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
    if (alarmed) continue;
    if (clock.expired(start, limit)) {
      std::ostringstream os;
      os << "[saferecl] forked child " << child << " did not end within " << limit.count()
         << " ms of the time it could run: SIGALRM\n";
      clock.print_if_starved(os, start, limit);
      os << "[saferecl] evidence:\n";
      clock.print_evidence(os, start);
      std::fputs(os.str().c_str(), stderr);
      ::kill(child, SIGALRM);
      alarmed = true;
    } else if (waiting != nullptr) {
      waiting->progressed();
    }
  }
  if (output_fd >= 0) {  // the rest of what it wrote
    char buf[4096];
    for (ssize_t got; (got = ::read(output_fd, buf, sizeof buf)) > 0;)
      end.output.append(buf, static_cast<std::size_t>(got));
  }
  return end;
}

}  // namespace saferecl::test
