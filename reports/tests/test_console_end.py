"""The end of a run's console fits a screen (reports/console_end.py): the implementation table
and each unexpected result with its output file; expected failures, per-requirement findings
and coverage stay in summary.md."""

from __future__ import annotations

import re
import shlex

from reports.console_end import console_end
from reports.tests.conftest import results_of


def test_the_end_has_the_table_and_the_unexpected_results_only(rendered, tmp_path):
    directory = rendered("mixed")
    doc = results_of(directory)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    failing = next(t for t in doc["tests"] if t["verdict"] == "FAIL" and t["ctest_name"])
    stem = re.sub(r"[^A-Za-z0-9._=-]+", "_", failing["ctest_name"])[:120].strip("_")
    (outputs / f"0007-{stem}.log").write_text("output\n")
    end = console_end(doc, outputs)
    text = "\n".join(end)
    summary = (directory / "summary.md").read_text().splitlines()
    for impl in doc["implementations"]:
        assert any(line.startswith(impl["name"]) for line in end), (impl["name"], text)
    failing_count = sum(t["verdict"] in ("FAIL", "TIMEOUT", "CRASH", "NOT BUILT") for t in doc["tests"])
    assert failing_count > 0 and text.count("\n    ") >= 1
    assert f"{failing['implementation']}/{failing['name']}: FAIL" in text
    assert f"output: {outputs}/0007-{stem}.log" in text
    assert "Requirement coverage" not in text and "## " not in text, text
    assert len(end) < len(summary), (len(end), len(summary))


def test_with_expectations_only_the_unexpected_are_listed():
    doc = {"conforming": False, "not_judged": [],
           "implementations": [{"name": "a", "available": True, "selected": True, "verdict": "NOT conforming",
                                "conforming": False, "not_conforming_because": ["2 failing normative (core/cxx29) test(s)"],
                                "counts": {"PASS": 5, "FAIL": 2}}],
           "tests": [{"implementation": "a", "name": "known", "verdict": "FAIL", "outcome": "EXPECTED FAIL"},
                     {"implementation": "a", "name": "new one", "verdict": "FAIL", "outcome": "NEW FAILURE",
                      "detail": "exit status 1", "headline": "x.cpp:3: ERROR: CHECK(1 == 2)"}],
           "expectations": {"unexpected": ["a/new one"], "problems": []}}
    end = console_end(doc)
    assert end[0] == "== result: NOT conforming"
    assert any("5 PASS, 2 FAIL" in line for line in end)
    assert "NEW FAILURE: a/new one: FAIL (exit status 1)" in end and "    x.cpp:3: ERROR: CHECK(1 == 2)" in end
    assert not any("known" in line for line in end)


def test_every_failure_shows_its_repro_command(rendered):
    """results.json, summary.md and report.html give the ./conformance repro command beside
    every failure that ran (not beside a pass, nor a test that never reached CTest)."""
    directory = rendered("mixed")
    doc = results_of(directory)
    ran_and_failed = [t for t in doc["tests"] if t["verdict"] in ("FAIL", "TIMEOUT", "CRASH") and t["ctest_name"]]
    assert ran_and_failed
    for t in doc["tests"]:
        if t in ran_and_failed and t["kind"] != "compile-fail":
            assert t["repro"] == f"./conformance repro {shlex.quote(t['ctest_name'])} --run {directory}", t
        elif t["verdict"] in ("PASS", "NOT BUILT", "NOT RUN"):
            assert "repro" not in t
    summary = (directory / "summary.md").read_text()
    html = (directory / "report.html").read_text()
    one = next(t for t in ran_and_failed if t["kind"] != "compile-fail")
    assert f"repro: `{one['repro']}`" in summary
    import html as escaping
    assert f"repro: <code>{one['repro']}</code>" in escaping.unescape(html)


def test_a_shard_says_the_other_shards_tests_were_not_run(rendered, tmp_path):
    import json
    import shutil
    from reports import write_reports
    shard = tmp_path / "shard"
    shutil.copytree(rendered("mixed"), shard)
    run = json.loads((shard / "run.json").read_text())
    (shard / "run.json").write_text(json.dumps({**run, "shard": "2/3"}))
    doc = write_reports(shard)
    assert "(shard 2/3: the other shards' tests were not run here)" in console_end(doc)[0]
    assert "This is shard 2 of 3: the tests of the other shards were not run here" in (shard / "summary.md").read_text()
