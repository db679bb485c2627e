"""The junit.xml reader: what it takes from a <testcase>, and a damaged file."""

from __future__ import annotations

from reports.junit import parse_junit

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3">
  <testcase name='ref/a "quoted" &amp; &lt;b&gt;' classname="x" time="0.05" status="run">
    <system-out>[saferecl] exit status 0
</system-out>
  </testcase>
  <testcase name="ref/skipped" time="0.02" status="notrun">
    <skipped message="SKIP_RETURN_CODE=77"/>
    <system-out>[saferecl] NOT APPLICABLE: no
</system-out>
  </testcase>
  <testcase name="ref/failed" time="3.5" status="fail">
    <failure message=""/>
  </testcase>
</testsuite>
"""


def test_reads_every_testcase():
    junit = parse_junit(JUNIT)
    assert junit.problem == ""
    a, skipped, failed = junit.cases
    assert a.name == 'ref/a "quoted" & <b>' and a.status == "run" and a.time == 0.05
    assert a.output == "[saferecl] exit status 0\n" and not a.failed and not a.skipped
    assert skipped.skipped and skipped.skip_message == "SKIP_RETURN_CODE=77" and skipped.status == "notrun"
    assert failed.failed and failed.output == "" and failed.time == 3.5


def test_a_damaged_file_keeps_the_cases_before_the_damage():
    junit = parse_junit(JUNIT[:JUNIT.index('<testcase name="ref/failed"') + 30])
    assert [c.name for c in junit.cases] == ['ref/a "quoted" & <b>', "ref/skipped"]
    assert "junit.xml is damaged" in junit.problem and "tests before that point are reported" in junit.problem


def test_an_empty_suite_has_no_cases():
    assert parse_junit('<testsuite name="saferecl" tests="0"/>').cases == []
