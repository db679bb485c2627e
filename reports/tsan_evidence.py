"""Whether a ThreadSanitizer race report is evidence TSan could judge.

TSan sees a happens-before edge only where code is compiled with -fsanitize=thread or calls
a function TSan intercepts. Synchronization that escapes it makes a race it reports across
it no evidence of a bug:

- **An uninstrumented C++ runtime.** Debian's libc++.a completes std::call_once inside the
  archive (the release that publishes the callable's writes), and counts std::barrier's
  arrivals there. A report one of whose access stacks runs through such a function
  (a frame in libc++'s namespace with no source location: the archive has no debug
  information and no instrumentation) is unjudgeable, unless the run used an instrumented
  runtime or the link-time annotations of suite/support/runtime_annotations/ (run.json's
  cxx_runtime says which).
- **atomic_thread_fence** does not escape it in the battery: no TSan runtime models fences,
  but the battery's TSan builds do (suite/support/tsan/fences.cpp), and where that model is
  not exact it is wider than C++ (it may hide a race, and says so on stderr as
  "[saferecl] TSan fence model widened: ..."), never narrower: a race TSan reports in a
  process that fenced is evidence like any other.

A third thing is TSan's own limit, not a race: **a forked child of a multi-threaded process
that starts a thread** is ended by TSan ("starting new threads after multi-threaded fork is
not supported. Dying", exit 66), whatever the implementation does. The test environment sets
die_after_fork=0 (driver/ctest.py), under which the child runs (measured: clang 14 and 22,
a child starting 4 threads after a fork with 3 running, 40 of 40 runs exit 0; TSan then
ignores the child's memory accesses, so a race there is not reported: 0 of 20 runs of a
racy child), so the child's own checks judge it. Where a child still died by the refusal
(a user's die_after_fork=1), the test's failure is the tool's: INCONCLUSIVE.

Everything else stays evidence: a race whose stacks lie in the implementation's or the
test's own code, under a runtime TSan sees, is a FAIL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from reports import protocol
from reports.classify import Classification

RACE_HEADER = "WARNING: ThreadSanitizer: data race"
# TSan's refusal to start a thread in the child of a multi-threaded fork (die_after_fork).
FORK_REFUSAL = "ThreadSanitizer: starting new threads after multi-threaded fork is not supported"
FORK_REFUSAL_DETAIL = ("ThreadSanitizer ended a forked child that started a thread (\"starting new threads "
                       "after multi-threaded fork is not supported\"): the tool's limit, not the "
                       "implementation's failure; the child runs under die_after_fork=0 (the suite's "
                       "default) and in the asan and none tiers")
# The first line of a stack of one of the two racing accesses.
ACCESS_LINE = re.compile(r"^\s+(Previous )?(atomic )?(read|write)\b.* of size \d+ at ", re.IGNORECASE)
# A frame inside the uninstrumented libc++: std::__1 (or std::__N) function, no source file.
RUNTIME_FRAME = re.compile(r"^\s+#\d+ (std::__\d+::\S.*?) <null> \(")
FRAME = re.compile(r"^\s+#\d+ ")
# Other evidence in the same output: the test's own checks, or another sanitizer's finding.
OTHER_FAILURE = re.compile(r"Status: FAILURE!|ERROR: (Address|Leak|UndefinedBehavior|Memory)Sanitizer"
                           r"|runtime error: |\[saferecl\] TIMEOUT|^\s*FAIL: ", re.MULTILINE)


@dataclass
class Judgement:
    judged: bool  # True: the output is evidence (no race, or a race TSan could see)
    reason: str = ""  # why not, when not judged


def race_reports(output: str) -> list[list[str]]:
    """The lines of every data race report in an output."""
    reports, current = [], None
    for line in output.splitlines():
        if RACE_HEADER in line:
            current = []
            reports.append(current)
        elif current is not None:
            if line.startswith("SUMMARY: ThreadSanitizer") or line.startswith("=================="):
                current = None
            else:
                current.append(line)
    return reports


def runtime_frames(report: list[str]) -> list[str]:
    """The uninstrumented runtime's functions on the two access stacks of one report."""
    found, in_access = [], False
    for line in report:
        if ACCESS_LINE.match(line):
            in_access = True
        elif not FRAME.match(line):
            in_access = False
        elif in_access and (m := RUNTIME_FRAME.match(line)):
            found.append(m[1].split("(")[0])
    return found


def judge(output: str, runtime: dict | None) -> Judgement:
    """Whether a TSan-tier output whose process failed with the sanitizer's status is evidence.
    `runtime` is run.json's cxx_runtime (None: unknown, taken as seen)."""
    races = race_reports(output)
    if not races or OTHER_FAILURE.search(output):
        return Judgement(True)
    runtime = runtime or {}
    runtime_blind = runtime.get("instrumented") is False and not runtime.get("annotations")
    reasons = []
    for report in races:
        frames = runtime_frames(report) if runtime_blind else []
        if frames:
            reasons.append(f"a racing access runs through {frames[0]}, inside "
                           f"{runtime.get('library', 'the C++ runtime')}, which is not instrumented: "
                           "TSan cannot see its synchronization")
        else:
            return Judgement(True)  # one race TSan could judge is enough
    return Judgement(False, reasons[0] + (f" ({len(reasons)} reports alike)" if len(reasons) > 1 else ""))


def reclassify(c: Classification, output: str, sanitizer: str | None, runtime: dict | None) -> Classification:
    """A TSan tier's sanitizer failure whose evidence TSan could not judge becomes INCONCLUSIVE
    (with the reason as its detail), and so does a failure of a test one of whose forked
    children TSan ended (FORK_REFUSAL); every other classification stays as it is."""
    if sanitizer == "tsan" and c.verdict == protocol.VERDICT_FAIL and FORK_REFUSAL in output:
        return replace(c, verdict=protocol.VERDICT_INCONCLUSIVE, detail=FORK_REFUSAL_DETAIL)
    if sanitizer != "tsan" or c.verdict != protocol.VERDICT_FAIL or c.exit_status != protocol.SANITIZER:
        return c
    judgement = judge(output, runtime)
    return c if judgement.judged else replace(c, verdict=protocol.VERDICT_INCONCLUSIVE, detail=judgement.reason)


def fence_widenings(output: str) -> list[str]:
    """What the TSan fence model said it widened in this output, each kind once, in order."""
    said = []
    for line in output.splitlines():
        start = line.find(protocol.FENCE_MODEL_WIDENED_PREFIX)
        if start >= 0:
            what = line[start + len(protocol.FENCE_MODEL_WIDENED_PREFIX):].strip()
            if what and what not in said:
                said.append(what)
    return said
