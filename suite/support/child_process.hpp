// Forked children, judged on the time they could run.
//
// A forked child cannot keep a watchdog thread (under TSan the child of a multi-threaded
// process may not start one), so its parent watches it: wait_for_child() reads what the child
// writes to its pipe and waits for it to end, and once the child has had child_limit() of time
// it could run (support/liveness.hpp, measured on the child's own threads) without ending, it
// sends the child SIGALRM -- the signal of the alarm() each child used to arm for itself, so a
// hung child is reported as before ("killed by signal 14") -- after printing the evidence. On a
// busy machine a starved child is given more wall time, as the watchdog gives a test. The child
// arms alarm() only at the wall-clock cap (arm_child_alarm()), for a parent that is gone.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace saferecl::test {

class watchdog;

// Half the watchdog's limit: a hung child dies before the watchdog of a parent waiting for it.
std::chrono::milliseconds child_limit();

// In the child, right after fork: SIGALRM at the wall-clock cap of child_limit().
void arm_child_alarm();

struct child_end {
  int status = 0;      // as waitpid reports it
  std::string output;  // what the child wrote to `output_fd`
};

// Waits for `child` to end, reading `output_fd` (-1: none) until its end of file; a child that
// has had `limit` of time it could run gets SIGALRM. While the child lives and is within its
// limit, `waiting` (if any) is told the step is progressing: the child is judged here.
child_end wait_for_child(pid_t child, int output_fd = -1, std::chrono::milliseconds limit = child_limit(),
                         watchdog* waiting = nullptr);

}  // namespace saferecl::test
