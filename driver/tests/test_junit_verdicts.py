"""junit.xml -> verdicts -> the tests that killed a mutant, through the driver (driver.ctest,
which uses the reports' junit reader and classification)."""

from pathlib import Path

from driver.ctest import EMPTY_JUNIT, failing_tests, verdicts
from reports import protocol

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="saferecl" tests="6" failures="4" disabled="0" skipped="1" time="9">
 <testcase name="mutants/h.mem/5 H30: passes" classname="x" time="0.5" status="run">
  <system-out>[saferecl] exit status 0</system-out></testcase>
 <testcase name="mutants/h.mem/6 H31: a check fails" classname="x" time="2.0" status="fail">
  <failure message="Failed"/><system-out>x.cpp:3: ERROR: CHECK( a == b ) is NOT correct!
[saferecl] exit status 1</system-out></testcase>
 <testcase name="mutants/r.func/2 R29: hangs" classname="x" time="20.1" status="fail">
  <failure message="Failed"/><system-out>[saferecl] TIMEOUT: watchdog: 'x' did not finish
[saferecl] exit status 124</system-out></testcase>
 <testcase name="mutants/r.func/3 R30: crashes" classname="x" time="0.2" status="fail">
  <failure message="Failed"/><system-out>[saferecl] exit status 139</system-out></testcase>
 <testcase name="mutants/r.base/9 R18: not applicable" classname="x" time="0.1" status="notrun">
  <skipped message="SKIP_RETURN_CODE=77"/><system-out>[saferecl] NOT APPLICABLE: no rcu_barrier
[saferecl] exit status 77</system-out></testcase>
 <testcase name="mutants/h.general/1 H1: sanitizer" classname="x" time="1.0" status="fail">
  <failure message="Failed"/><system-out>WARNING: ThreadSanitizer: data race
[saferecl] exit status 66</system-out></testcase>
</testsuite>
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "junit.xml"
    path.write_text(text)
    return path


def test_every_case_gets_its_verdict(tmp_path):
    found = {name.split(": ", 1)[1]: verdict for name, verdict, _ in verdicts(write(tmp_path, JUNIT))}
    assert found == {"passes": protocol.VERDICT_PASS, "a check fails": protocol.VERDICT_FAIL,
                     "hangs": protocol.VERDICT_TIMEOUT, "crashes": protocol.VERDICT_CRASH,
                     "not applicable": protocol.VERDICT_NOT_APPLICABLE,
                     "sanitizer": protocol.VERDICT_FAIL}


def test_kills_are_failures_timeouts_and_crashes_fastest_first(tmp_path):
    kills = failing_tests(write(tmp_path, JUNIT))
    assert [k["test"] for k in kills] == ["r.func/3 R30: crashes", "h.general/1 H1: sanitizer",
                                          "h.mem/6 H31: a check fails", "r.func/2 R29: hangs"]
    assert [k["time"] for k in kills] == [0.2, 1.0, 2.0, 20.1]


def test_no_junit_or_no_tests_is_no_kill(tmp_path):
    assert failing_tests(tmp_path / "missing.xml") == []
    empty = write(tmp_path, EMPTY_JUNIT)
    assert verdicts(empty) == [] and failing_tests(empty) == []
