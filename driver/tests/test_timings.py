"""Where a run's time went (driver/timings.py): summed test time per implementation and
the slowest tests, from junit.xml."""

from driver import timings

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="saferecl" tests="4" failures="1" disabled="0" skipped="0" time="9">
 <testcase name="reference/a: quick" classname="x" time="0.25" status="run">
  <system-out>[saferecl] exit status 0</system-out></testcase>
 <testcase name="reference/b: stress" classname="x" time="2.0" status="run">
  <system-out>[saferecl] exit status 0</system-out></testcase>
 <testcase name="libcds/a: quick" classname="x" time="0.5" status="run">
  <system-out>[saferecl] exit status 0</system-out></testcase>
 <testcase name="libcds/c: hangs" classname="x" time="60.1" status="fail">
  <failure message="Failed"/><system-out>[saferecl] TIMEOUT: watchdog: 'x' did not finish
[saferecl] exit status 124</system-out></testcase>
</testsuite>
"""


def test_each_implementation_sums_its_own_tests_and_the_slowest_come_first(tmp_path):
    junit = tmp_path / "junit.xml"
    junit.write_text(JUNIT)
    clock = timings.StageClock()
    with clock.stage("build"):
        pass
    recorded = timings.timings(clock, junit)
    assert list(recorded["stages"]) == ["build"]
    assert recorded["implementations"] == {"libcds": {"tests": 2, "seconds": 60.6},
                                           "reference": {"tests": 2, "seconds": 2.2}}
    assert [(t["test"], t["verdict"]) for t in recorded["slowest"][:2]] == \
        [("libcds/c: hangs", "TIMEOUT"), ("reference/b: stress", "PASS")]
    text = "\n".join(timings.lines(recorded))
    assert "libcds: 2 tests, 60.6 s of test time" in text and "TIMEOUT" in text


def test_no_junit_means_no_test_time(tmp_path):
    recorded = timings.timings(timings.StageClock(), tmp_path / "junit.xml")
    assert recorded["implementations"] == {} and recorded["slowest"] == []

