"""The exit-status protocol of a test process and the verdict names of the reports.

This is the tooling's single definition; the C++ side is suite/support/exit_status.hpp, and a
test in driver/tests checks that both agree.  A test process ends with one of the statuses
below; the reports turn what CTest recorded into one of the verdicts.
"""

# Exit statuses of a test process.
PASS = 0
FAIL = 1
SANITIZER = 66  # a sanitizer found a problem (ASAN/TSAN/UBSAN exitcode=66)
NOT_APPLICABLE = 77  # the test needs something this implementation or host cannot give
TIMEOUT = 124  # the test's own watchdog fired

# What a test prints, on stderr, before it exits with NOT_APPLICABLE:
# "[saferecl] NOT APPLICABLE: <reason>".
NOT_APPLICABLE_PREFIX = "[saferecl] NOT APPLICABLE:"
# What the watchdog prints before it exits with TIMEOUT.
TIMEOUT_PREFIX = "[saferecl] TIMEOUT"
# What follows TIMEOUT_PREFIX when a parent judged its forked child hung.
FORKED_CHILD_MARK = ": forked child"
# What the stress harness's stall detector prints ("[saferecl] <test>: STALL: ...") before it
# exits with FAIL.
STALL_MARK = "STALL:"
# What the watchdog or the stall detector prints (after its TIMEOUT or STALL line) when the
# wall-clock cap ended a window in which the process could run less than a quarter of its limit:
# other load starved it, which is no evidence of a hang (INCONCLUSIVE).
STARVED_PREFIX = "[saferecl] STARVED:"
# What the TSan fence model (suite/support/tsan/fences.cpp) prints, once per process and kind,
# when it performed an edge wider than C++'s: a race could have been hidden there, so a PASS of
# that process is said to rest on a widened model.
FENCE_MODEL_WIDENED_PREFIX = "[saferecl] TSan fence model widened:"
# What a compile-fail test prints (suite/cmake/compile_check.cmake) when its positive twin does
# not compile: the API it uses is missing or broken, so it shows nothing (NOT BUILT).
TWIN_NOT_BUILT_PREFIX = "[saferecl] NOT BUILT:"

# Verdicts, in the order of severity the reports use when several tests meet in one cell.
VERDICT_PASS = "PASS"
VERDICT_FAIL = "FAIL"
VERDICT_TIMEOUT = "TIMEOUT"
VERDICT_CRASH = "CRASH"
VERDICT_NOT_APPLICABLE = "NOT APPLICABLE"
VERDICT_NOT_BUILT = "NOT BUILT"
# A sanitizer report the sanitizer could not judge (reports/tsan_evidence.py): no pass, no
# failure; the implementation is "not judged" in that tier.
VERDICT_INCONCLUSIVE = "INCONCLUSIVE"
# A test the run's selection left out (CTest's -R/-E/-L/-LE): nothing is known of it in this
# run, so it is neither NOT APPLICABLE nor a pass (reports/selection.py).
VERDICT_NOT_RUN = "NOT RUN"
VERDICTS = (
    VERDICT_PASS,
    VERDICT_FAIL,
    VERDICT_TIMEOUT,
    VERDICT_CRASH,
    VERDICT_NOT_APPLICABLE,
    VERDICT_NOT_BUILT,
    VERDICT_INCONCLUSIVE,
    VERDICT_NOT_RUN,
)
# Verdicts that make an implementation non-conforming when the test is normative.
FAILING_VERDICTS = frozenset({VERDICT_FAIL, VERDICT_TIMEOUT, VERDICT_CRASH, VERDICT_NOT_BUILT})


def is_failing(verdict: str) -> bool:
    return verdict in FAILING_VERDICTS
