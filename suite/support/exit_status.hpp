// The exit-status protocol of a test process: how a battery executable tells the reports
// how a test case ended. This is the C++ side's single definition; the tooling's is
// reports/protocol.py, and driver/tests/test_exit_protocol.py checks that both agree.
//
// CTest runs each case through suite/cmake/run_test.sh, which prints the status it saw;
// the reports turn the status (or a signal, or no status at all when CTest's TIMEOUT killed
// the process) into a verdict.
#pragma once

namespace saferecl::test::exit_status {

inline constexpr int kPass = 0;
inline constexpr int kFail = 1;             // a failed check (doctest)
inline constexpr int kSanitizer = 66;       // a sanitizer report (ThreadSanitizer's exitcode)
inline constexpr int kNotApplicable = 77;   // CTest: SKIP_RETURN_CODE; the reports: NOT APPLICABLE
inline constexpr int kTimeout = 124;        // the watchdog stopped a hang

// What a test prints on stderr before it exits with kNotApplicable or kTimeout.
inline constexpr const char* kNotApplicablePrefix = "[saferecl] NOT APPLICABLE:";
inline constexpr const char* kTimeoutPrefix = "[saferecl] TIMEOUT";
// What follows kTimeoutPrefix when a parent judged its forked child hung (child_process.cpp).
inline constexpr const char* kForkedChildMark = ": forked child";
// What the stress harness's stall detector prints ("[saferecl] <test>: STALL: ...") before it
// exits with kFail: a worker that made no progress while the run went on.
inline constexpr const char* kStallMark = "STALL:";
// What the watchdog or the stall detector prints (after its TIMEOUT or STALL line) when the
// wall-clock cap ended a window in which the process could run less than a quarter of its limit:
// other load starved it, which is no evidence of a hang; the reports judge it INCONCLUSIVE.
inline constexpr const char* kStarvedPrefix = "[saferecl] STARVED:";

}  // namespace saferecl::test::exit_status
