// Forked children, judged on their progress in the time they could run.
//
// A forked child cannot keep a watchdog thread (under TSan the child of a multi-threaded
// process may not start one), so its parent watches it, as a watchdog watches a step: the
// child reports signs of life (child_progressed(): a counter in memory shared with its parent,
// advanced by watchdog::progressed() and by each churn step, so a loop round, a check or a
// churn step in the child counts), and wait_for_child() restarts the child's window at each.
// A child that goes child_limit() of the time it could run (support/liveness.hpp, measured on
// the child's own threads) without a sign of life and without ending made no progress: the
// parent prints the TIMEOUT line with the evidence (the window's wall and could-run time, the
// child's threads and where each is), kills it and ends with exit_status::kTimeout -- TIMEOUT,
// never FAIL, in the test's own tier. So does a parent whose child ended with kTimeout (its own
// watchdog or grandchild fired). Under ASan the reports call such a TIMEOUT INCONCLUSIVE: its
// allocator takes no lock around fork, so a child may hang on one it inherited held
// (reports/evidence.py). A slow child that keeps reporting is given the time it needs;
// on a busy machine a starved child is given more wall time, as the watchdog gives a test.
// A child dies with its parent (PR_SET_PDEATHSIG), so a parent that is gone leaves none behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace saferecl::test {

class watchdog;

// Half the watchdog's limit: a hung child is judged before the watchdog of a parent waiting for it.
std::chrono::milliseconds child_limit();

// fork() for a child that a parent judges (wait_for_child): stdio is flushed first; in the
// child (0 returned) its progress now reaches the parent, and it dies with the thread that forked it.
pid_t fork_child();

// A sign of life in a child made by fork_child() (or in one of its own children); nothing in
// any other process, whose watchdogs see its progress directly. Cheap: one relaxed increment.
void child_progressed() noexcept;

struct child_end {
  int status = 0;      // as waitpid reports it
  std::string output;  // what the child wrote to `output_fd`
};

// Waits for `child` to end, reading `output_fd` (-1: none) until its end of file. A child that
// has had `limit` of time it could run with no sign of life ends this process as TIMEOUT (see
// above), as does a child that ended with exit_status::kTimeout. While the child lives and is
// within its limit, `waiting` (if any) is told the step is progressing: the child is judged here.
child_end wait_for_child(pid_t child, int output_fd = -1, std::chrono::milliseconds limit = child_limit(),
                         watchdog* waiting = nullptr);

}  // namespace saferecl::test
