"""The console of a test run (driver/progress.py): CTest's result lines are read as they
come; the status line is redrawn in place on a terminal and printed every `interval` seconds
otherwise; a result the known failures do not account for gets its own line at once, with
the line of the stream file where its output is."""

import io
from pathlib import Path

from driver import progress
from reports import expectations as ex

LOG = Path("/reports/run/ctest.log")
KNOWN = {"liburcu/saferecl.rcu.barrier/3 R7: waits": ex.Expectation(
    test="liburcu/saferecl.rcu.barrier/3 R7: waits", verdicts=("FAIL",),
    paragraph="saferecl.rcu.barrier/3", reason="known")}

STREAM = [
    "Test project /work/build/tsan-clang",
    "    Start 1: reference/saferecl.hp.holder.mem/5 H30: try_protect",
    "1/4 Test #1: reference/saferecl.hp.holder.mem/5 H30: try_protect ....   Passed    0.52 sec",
    "2/4 Test #2: liburcu/saferecl.rcu.barrier/3 R7: waits .......***Failed    1.10 sec",
    "some output of the expected failure",
    "3/4 Test #3: reference/saferecl.rcu.domain/2 R3: unlock ....***Exception: SegFault  0.20 sec",
    "4/4 Test #4: std/saferecl.hp.obj/1 H1: retire ..............   Skipped   0.01 sec",
]


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def feed(terminal: bool, stream=STREAM, step=1.0, known=KNOWN):
    out, clock = io.StringIO(), Clock()
    shown = progress.Progress("reference, liburcu, std", known, LOG, out=out, terminal=terminal,
                              interval=10, clock=clock)
    for line in stream:
        clock.now += step
        shown.line(line)
    shown.finish()
    return out.getvalue()


def test_result_lines_are_parsed():
    r = progress.parse_result("  12/285 Test  #12: reference/saferecl.hp.x/1 H2: y ....   Passed    0.52 sec")
    assert r == progress.Result(12, 285, "reference/saferecl.hp.x/1 H2: y", "Passed", 0.52)
    r = progress.parse_result("1/9 Test #1: a/b R1: x ... y ...***Exception: SegFault  0.20 sec")
    assert (r.test, r.status) == ("a/b R1: x ... y", "Exception")
    assert progress.parse_result(" 3/9 Test  #3: a/b ...***Timeout  300.01 sec").status == "Timeout"
    assert progress.parse_result(" 3/9 Test  #3: a/b ...***Not Run   0.00 sec").status == "Not Run"
    assert progress.parse_result("    Start 12: a/b") is None
    assert progress.parse_result("100% tests passed, 0 tests failed out of 4") is None


def test_not_a_terminal_prints_plain_lines_and_the_unexpected_result_at_once():
    text = feed(terminal=False)
    assert "\r" not in text
    lines = text.splitlines()
    # Only the crash is unexpected (line 6 of the stream file); the known failure, the pass and
    # the skip are only counted.
    assert lines[0] == f"NEW FAILURE: reference/saferecl.rcu.domain/2 R3: unlock (crashed): {LOG}:6"
    assert lines[-1] == ("   tests 4/4, 0:07: 1 passed, 1 failed, 1 crashed, 1 not applicable; "
                         "1 unexpected [reference, liburcu, std]")
    assert len(lines) == 2  # 7 s: no periodic line yet


def test_not_a_terminal_prints_the_status_every_interval():
    passes = [f"{n}/6 Test #{n}: reference/t{n} ....   Passed    0.1 sec" for n in range(1, 7)]
    lines = feed(terminal=False, stream=passes, step=6.0).splitlines()
    assert lines == ["   tests 2/6, 0:12, ETA 0:24: 2 passed [reference, liburcu, std]",
                     "   tests 4/6, 0:24, ETA 0:12: 4 passed [reference, liburcu, std]",
                     "   tests 6/6, 0:36: 6 passed [reference, liburcu, std]"]  # the end: said once


def test_terminal_redraws_in_place_and_the_unexpected_line_stays():
    text = feed(terminal=True)
    assert text.endswith("\n") and "\r   tests 1/4, 0:03, ETA 0:09: 1 passed" in text
    # The unexpected line overwrites the status line, which is drawn again below it.
    before, after = text.split(f"NEW FAILURE: reference/saferecl.rcu.domain/2 R3: unlock (crashed): {LOG}:6\n")
    assert before.endswith("\r")
    assert after.startswith("\r   tests 3/4")
    screen = [line.split("\r")[-1] for line in text.split("\n")]  # what remains on the screen
    assert screen[0].startswith("NEW FAILURE")
    assert screen[1].startswith("   tests 4/4, 0:07: 1 passed, 1 failed, 1 crashed, 1 not applicable")


def test_a_known_failure_that_passes_is_unexpected_unless_flaky():
    passing = ["1/1 Test #1: liburcu/saferecl.rcu.barrier/3 R7: waits ....   Passed    0.1 sec"]
    assert "UNEXPECTED PASS: liburcu/saferecl.rcu.barrier/3 R7: waits (passed)" in feed(False, passing)
    flaky = {t: ex.Expectation(e.test, e.verdicts, e.paragraph, e.reason, flaky=True) for t, e in KNOWN.items()}
    assert "UNEXPECTED" not in feed(False, passing, known=flaky)
