"""The console of a test run (driver/console.py Progress, fed by driver/ctest.py LiveVerdicts):
CTest's stream is read as it comes; the progress line is redrawn in place on a terminal and
printed every `interval` seconds otherwise; a result the known failures do not account for
gets its own line at once, with its verdict (the reports' classification) and the file
holding its output; an expected failure is only counted."""

import io
from pathlib import Path

from driver import console
from driver.ctest import LiveVerdicts
from reports import expectations as ex

KNOWN_NAME = "liburcu/saferecl.rcu.barrier/3 R7: barrier waits for earlier callbacks"
KNOWN = [ex.Expectation(test=KNOWN_NAME, verdicts=("FAIL",), paragraph="saferecl.rcu.barrier/3",
                        reason="known")]
CRASHING = "reference/saferecl.rcu.domain/2 R3: unlock ends the region"

STREAM = [
    "Test project /work/build/tsan",
    "      Start  1: reference/saferecl.hp.holder.mem/5 H30: try_protect with an unchanged source",
    "      Start  2: " + KNOWN_NAME,
    "1/4 Test  #1: reference/saferecl.hp.holder.mem/5 H30: try_protect with an unchanged source ...   Passed    0.52 sec",
    "2/4 Test  #2: " + KNOWN_NAME + " .......***Failed    1.10 sec",
    "FAIL: callbacks ran late",
    "[saferecl] exit status 1",
    "      Start  3: " + CRASHING,
    "3/4 Test  #3: " + CRASHING + " ....***Exception: SegFault  0.20 sec",
    "ThreadSanitizer:DEADLYSIGNAL",
    "==1==ERROR: ThreadSanitizer: SEGV on unknown address 0x000000000000",
    "[saferecl] exit status 139",
    "      Start  4: liburcu/saferecl.rcu.obj/1 R1: retire",
    "4/4 Test  #4: liburcu/saferecl.rcu.obj/1 R1: retire ..............***Skipped   0.01 sec",
    "",
    "50% tests passed, 2 tests failed out of 4",
]


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def run(tmp_path: Path, terminal: bool, step: float = 1.0) -> tuple[str, list[str]]:
    """The console after the stream, and what it showed after each stream line."""
    out, clock = io.StringIO(), Clock()
    progress = console.Progress("tests", out=out, tty=terminal, interval=10, clock=clock)
    watch = LiveVerdicts(progress, tmp_path / "ctest.log", tmp_path / "outputs",
                         Path("/final/outputs"), [], KNOWN, "tsan", None)
    seen = []

    def lines():
        for line in STREAM:
            clock.now += step
            yield line + "\n"
            seen.append(out.getvalue())
    watch.read(lines())
    return out.getvalue(), seen


def test_a_crash_is_shown_as_it_happens_with_its_verdict_and_output_file(tmp_path):
    shown, seen = run(tmp_path, terminal=False)
    crash_line = f"NEW FAILURE: {CRASHING}: CRASH"
    assert crash_line in shown
    # Shown before the stream ended: once the next test's start line settled it.
    assert crash_line in seen[STREAM.index("      Start  4: liburcu/saferecl.rcu.obj/1 R1: retire")]
    crash_file = next((tmp_path / "outputs").glob("0003-*.log"))
    assert "SEGV on unknown address" in crash_file.read_text()
    assert f"output: /final/outputs/{crash_file.name}" in shown
    assert "ThreadSanitizer: SEGV" in shown  # the headline


def test_an_expected_failure_is_only_counted(tmp_path):
    shown, _ = run(tmp_path, terminal=False)
    assert f"NEW FAILURE: {KNOWN_NAME}" not in shown
    assert "callbacks ran late" not in shown
    assert "EXPECTED FAIL 1" in shown
    assert (tmp_path / "ctest.log").read_text().splitlines() == STREAM  # all of it is kept


def test_without_a_terminal_plain_lines_every_interval_and_at_the_end(tmp_path):
    shown, _ = run(tmp_path, terminal=False, step=1.0)
    assert "\r" not in shown and "\x1b" not in shown
    progress_lines = [line for line in shown.splitlines() if line.startswith("[")]
    # The first result line, none in the next 10 s (the stream lasts 16 s), and the end.
    assert len(progress_lines) == 3, progress_lines
    assert progress_lines[-1].startswith("[4/4 tests] 0:16 | CRASH 1, EXPECTED FAIL 1, "
                                         "NOT APPLICABLE 1, PASS 1 | UNEXPECTED 1")


def test_on_a_terminal_the_line_is_redrawn_and_an_unexpected_result_goes_above_it(tmp_path):
    shown, _ = run(tmp_path, terminal=True)
    assert shown.count("\n") == 4  # the unexpected result (3 lines) and the final line, no other
    assert shown.count("\r") >= 4
    before, _, after = shown.partition(f"NEW FAILURE: {CRASHING}")
    assert before.endswith("\r\x1b[K")  # the progress line was wiped first ...
    assert after.split("\n")[3].startswith("\r[3/4 tests]")  # ... and drawn again below
    assert shown.rstrip("\n").rsplit("\r", 1)[-1].startswith("[4/4 tests] 0:16")


def test_eta_from_the_pace_so_far():
    clock = Clock()
    progress = console.Progress("tests", out=io.StringIO(), tty=False, clock=clock)
    clock.now = 30
    progress.finished("PASS", total=4)
    assert progress.line().startswith("[1/4 tests] 0:30, ETA 1:30 | PASS 1")


def test_quiet_prints_only_the_end(capsys):
    console.set_level(console.QUIET)
    try:
        console.say("build 1/2")
        console.conclude("reports: here")
    finally:
        console.set_level(console.NORMAL)
    assert capsys.readouterr().out == "reports: here\n"
