// Repeating a first-use race in fresh processes.
//
//   passes_in_fresh_processes(n, body)
//       runs body() in up to n forked children, one after another, each starting from the
//       parent's state (so a once-only initialization the parent has not done yet is done
//       anew in every child). A child fails if body() returns false, if it ends by a
//       signal, or if a
//       sanitizer reported in it: a child ends with _Exit, so TSan's exit code never
//       shows, and its stderr is read for the report instead. Stops at the first failing
//       child (its output copied to stderr) and returns false; true if all n passed. A
//       child whose only failure is a sanitizer report ends this process as the sanitizer
//       would (exit status 66), so the report is judged like one of the parent's own (a
//       TSan race that TSan could not see through is INCONCLUSIVE: reports/tsan_evidence.py).
//       A child that found the test not applicable (exit status 77: the adapter lacks what
//       the body uses) ends this process the same way, with the child's reason. A child
//       that makes no progress for child_limit() of the time it could run ends this process
//       as TIMEOUT (support/child_process.hpp).
//
// A race on first use happens once per process: a test that runs it once sees a defect
// only when that one run goes wrong. Repeating it in fresh children lets a probabilistic
// defect show in every tier (TSan, ASan, optimized), where a race detector is absent too.
// The caller must be single-threaded when it calls this (fork); a child may start threads
// (TSan allows that in the child of a single-threaded parent).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "support/child_process.hpp"
#include "support/exit_status.hpp"

namespace saferecl::test {

template <class Body>
bool passes_in_fresh_processes(std::size_t n, Body body) {
  for (std::size_t i = 0; i < n; ++i) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) std::abort();
    const pid_t pid = fork_child();
    if (pid < 0) std::abort();
    if (pid == 0) {
      ::close(pipe_fds[0]);
      ::dup2(pipe_fds[1], STDERR_FILENO);
      std::_Exit(body() ? 0 : 1);
    }
    ::close(pipe_fds[1]);
    const child_end end = wait_for_child(pid, pipe_fds[0]);
    ::close(pipe_fds[0]);
    const std::string& output = end.output;
    const int status = end.status;
    const bool sanitizer_report = output.find("WARNING: ThreadSanitizer") != std::string::npos ||
                                  output.find("ERROR: AddressSanitizer") != std::string::npos ||
                                  output.find("runtime error:") != std::string::npos;
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && !sanitizer_report;
    if (ok) continue;
    if (WIFEXITED(status) && WEXITSTATUS(status) == exit_status::kNotApplicable && !sanitizer_report) {
      std::fputs(output.c_str(), stderr);
      std::fflush(nullptr);
      std::_Exit(exit_status::kNotApplicable);
    }
    std::fprintf(stderr, "[saferecl] fresh process %zu of %zu failed (%s %d%s):\n%s", i + 1, n,
                 WIFEXITED(status) ? "exit status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                 sanitizer_report ? ", a sanitizer report" : "", output.c_str());
    const bool body_passed = WIFEXITED(status) &&
                             (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == exit_status::kSanitizer);
    if (sanitizer_report && body_passed) {
      std::fflush(nullptr);
      std::_Exit(exit_status::kSanitizer);
    }
    return false;
  }
  return true;
}

}  // namespace saferecl::test
