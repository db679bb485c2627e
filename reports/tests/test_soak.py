"""--repeat (reports/soak.py): the rounds' junit files become one junit.xml keeping each
test's first failure, and soak.json counts runs and failures with the first failing seed;
the reports list the tests that failed in some round with a replay command."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

from reports import soak, write_reports
from reports.tests.conftest import FIXTURES

CLEAN = '<testcase name="{n}" time="1.0" status="run"><system-out>round {r}</system-out></testcase>'
FAILED = '<testcase name="{n}" time="1.0" status="fail"><failure message=""/><system-out>round {r}</system-out></testcase>'


def rounds(tmp_path, table: dict[str, str]) -> list:
    """table: test -> one letter per round, "." passed, "F" failed."""
    out = []
    for r in range(len(next(iter(table.values())))):
        cases = "".join((FAILED if marks[r] == "F" else CLEAN).format(n=name, r=r + 1)
                        for name, marks in table.items())
        path = tmp_path / f"junit-{r + 1}.xml"
        path.write_text(f'<?xml version="1.0"?><testsuite name="saferecl">{cases}</testsuite>')
        out.append((100 + r, path))
    return out


def test_first_failure_kept_with_its_seed(tmp_path):
    junit, doc = soak.aggregate(rounds(tmp_path, {"a/steady": "...", "a/rare": ".F.", "a/broken": "FFF"}))
    records = {c.get("name"): c for c in junit.iter("testcase")}
    assert records["a/rare"].find("system-out").text == "round 2" and records["a/rare"].get("status") == "fail"
    assert records["a/steady"].find("system-out").text == "round 3"
    assert records["a/broken"].find("system-out").text == "round 1"
    assert doc["seeds"] == [100, 101, 102] and doc["rounds"] == 3
    assert doc["tests"]["a/rare"] == {"runs": 3, "failures": 1, "first_failing_seed": 101}
    assert doc["tests"]["a/steady"] == {"runs": 3, "failures": 0, "first_failing_seed": None}
    assert [n for n, _ in soak.failing(doc)] == ["a/broken", "a/rare"]
    assert junit.get("tests") == "3" and junit.get("failures") == "2"


def test_replay_command():
    command = soak.replay_command("liburcu/saferecl.rcu.general/5 R4: a (b)", 101,
                                  {"sanitizer": "tsan", "profile": "soak"})
    assert command == ("./conformance run --impl liburcu --seed 101 --sanitizer tsan --profile soak "
                       "-- -R '^liburcu/saferecl\\.rcu\\.general/5 R4: a \\(b\\)$'")


def test_the_reports_show_the_rounds(tmp_path):
    out = tmp_path / "mixed"
    shutil.copytree(FIXTURES / "mixed", out, ignore=shutil.ignore_patterns("README.md"))
    h30 = "buggy/saferecl.hp.holder.mem/5 H30: try_protect with a changed source returns false"
    (out / "soak.json").write_text(json.dumps({"schema": soak.SCHEMA, "rounds": 4, "seeds": [42, 43, 44, 45],
                                               "tests": {h30: {"runs": 4, "failures": 1, "first_failing_seed": 44}}}))
    results = write_reports(out)
    [entry] = results["soak"]["failing"]
    assert entry["test"] == h30 and entry["first_failing_seed"] == 44 and "--seed 44" in entry["replay"]
    summary = (out / "summary.md").read_text()
    assert "**Soak: 4 rounds** (seeds 42, 43, 44, 45); 1 test(s) failed in some round." in summary
    assert "1 of 4 rounds, first with seed 44" in summary
    page = (out / "report.html").read_text()
    assert '<section id="soak">' in page and '<a href="#soak">soak</a>' in page
    assert "<b>4 rounds</b> (seeds 42, 43, 44, 45)" in page and "1 of 4 rounds" in page
    assert "--seed 44" in page


def test_a_run_without_rounds_has_no_soak_section(tmp_path):
    out = tmp_path / "mixed"
    shutil.copytree(FIXTURES / "mixed", out, ignore=shutil.ignore_patterns("README.md"))
    write_reports(out)
    assert 'id="soak"' not in (out / "report.html").read_text()


def test_a_round_without_junit_counts_no_runs(tmp_path):
    given = rounds(tmp_path, {"a/t": ".F"})
    given[0][1].unlink()
    junit, doc = soak.aggregate(given)
    assert doc["tests"]["a/t"] == {"runs": 1, "failures": 1, "first_failing_seed": 101}
    assert ET.tostring(junit).count(b"<testcase") == 1
