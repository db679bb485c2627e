"""The report writers on hand-made report directories (fixtures/*/README.md says what each
holds): the verdicts, requirement cells and conformance they derive, and the shape of the
three outputs. The assertions of the C++ tool's check_report.py, on the index-based inputs."""

from __future__ import annotations

import html.parser
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reports.load import CATALOG
from reports.tests.conftest import results_of

SPEC = CATALOG.parents[3] / "shared" / "spec" / "requirements.md"  # outside the repository
REPO = CATALOG.parents[2]


class Page(html.parser.HTMLParser):
    """Collects what a self-contained page must not have, and the matrix cells."""

    def __init__(self) -> None:
        super().__init__()
        self.external: list[str] = []
        self.scripts = 0
        self.cells: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.scripts += 1
        if tag in ("img", "iframe", "audio", "video", "source", "embed") and a.get("src"):
            self.external.append(a["src"])
        if tag == "link":
            self.external.append(a.get("href", ""))
        if tag == "td" and (a.get("id") or "").startswith("cell-"):
            self.cells[a["id"]] = a.get("data-status", "")


def checked_page(path: Path) -> Page:
    page = Page()
    text = path.read_text()
    page.feed(text)
    assert page.scripts == 0, "report.html has no script"
    assert not page.external, f"report.html loads nothing ({page.external})"
    assert "@import" not in text and "url(" not in text, "the CSS loads nothing"
    return page


def test_outputs_are_written_atomically(rendered):
    for fixture in ("mixed", "harness", "empty", "bench"):
        out = rendered(fixture)
        for name in ("results.json", "summary.md", "report.html"):
            assert (out / name).is_file() and (out / name).stat().st_size > 0, f"{fixture}: {name}"
        leftovers = [p.name for p in out.iterdir() if ".tmp" in p.name]
        assert not leftovers, f"{fixture}: no temporary files are left"


def test_catalog_lists_every_row_once_in_clause_order():
    catalog = json.loads(CATALOG.read_text())
    ids = [r["id"] for r in catalog["rows"]]
    assert len(ids) == len(set(ids)), "row ids are unique"
    clauses = [c["key"] for c in catalog["clauses"]]
    assert all(r["clause"] in clauses for r in catalog["rows"]), "every row names a known clause"
    order = [clauses.index(r["clause"]) for r in catalog["rows"]]
    assert order == sorted(order), "rows are grouped in clause order"
    if SPEC.is_file():
        spec_ids = re.findall(r"^\| ([GRHB]\d+) \|", SPEC.read_text(), re.M)
        assert set(spec_ids) == set(ids), (f"catalog matches requirements.md (missing "
                                           f"{sorted(set(spec_ids) - set(ids))}, extra {sorted(set(ids) - set(spec_ids))})")


# --- mixed: every verdict kind, an unavailable adapter, mutants and benchmarks

MIXED_VERDICTS = [
    ("reference", "saferecl.hp.holder.mem/5 H30", "PASS", "", ""),
    ("reference", "saferecl.rcu.domain.general R19", "PASS", "", ""),
    ("reference", "saferecl.rcu.domain.func/2 R32", "NOT APPLICABLE", "", ""),
    ("buggy", "saferecl.hp.holder.mem/5 H30", "FAIL", "exit status 1", "CHECK( !ok )"),
    ("buggy", "saferecl.rcu.domain.func/3 R30", "FAIL", "sanitizer report", "ThreadSanitizer: data race"),
    ("buggy", "saferecl.rcu.domain.general R19", "FAIL", "compile check", "FAIL: compiled"),
    ("buggy", "saferecl.hp.holder.mem/3 H27", "TIMEOUT", "while compiling", ""),
    ("buggy", "saferecl.rcu.domain.func/4 R33", "TIMEOUT", "watchdog", "rcu_barrier()"),
    ("buggy", "saferecl.rcu.domain.func/1 R28", "TIMEOUT", "killed by CTest", ""),
    ("buggy", "saferecl.hp.general/6 H8", "CRASH", "SIGSEGV", ""),
    ("buggy", "saferecl.hp.general/5 H5", "CRASH", "deadly signal", "AddressSanitizer: SEGV"),
    ("buggy", "saferecl.hp.holder.mem/14 H35", "NOT BUILT", "does not compile", "no member named 'swap'"),
    ("buggy", "saferecl.hp.holder.nonmem/4 H37", "NOT BUILT", "", ""),
    ("buggy", "saferecl.hp.holder.nonmem/5 B2", "NOT APPLICABLE", "lacks: hp-batch", ""),
    ("buggy", "saferecl.hp.holder.nonmem/5 B7", "NOT APPLICABLE", "", ""),
]


def mixed_tests(rendered) -> dict:
    return {(t["implementation"], t["name"].split(":")[0]): t
            for t in results_of(rendered("mixed"))["tests"]}


@pytest.mark.parametrize("impl,prefix,want,detail,headline", MIXED_VERDICTS)
def test_mixed_verdict(rendered, impl, prefix, want, detail, headline):
    t = mixed_tests(rendered).get((impl, prefix))
    assert t is not None, f"{impl}/{prefix} is reported"
    assert t["verdict"] == want, t["detail"]
    assert detail in t["detail"]
    assert headline in t["headline"]


def test_mixed_names_seeds_and_mapping(rendered):
    results = results_of(rendered("mixed"))
    tests = mixed_tests(rendered)
    assert tests[("buggy", "saferecl.hp.holder.ctor/1 H22")]["verdict"] == "NOT RUN", \
        "a filtered-out test is NOT RUN"
    assert results["tests_not_run"] == 1, "one test of the index did not run"
    assert not any("this mention in a comment" in t["name"] for t in results["tests"]), \
        "TEST_CASE in a comment is not a test"
    assert '"quoted"' in tests[("buggy", "saferecl.hp.holder.nonmem/4 H37")]["name"], \
        "escaped quotes in a TEST_CASE name are kept"
    assert tests[("buggy", "saferecl.hp.general/6 H8")]["seed"] == "7", "a stress test's printed seed"
    h99 = tests[("reference", "saferecl.hp.holder.mem/5 H99")]
    assert h99["mapping"] == "paragraph" and "H30" in h99["requirements"], \
        "an unknown row id falls back to the paragraph"
    assert any("H99" in n for n in results["notes"]), "the unknown id is noted"
    assert "buggy/saferecl.demo/1 a failing test with no requirement row" in results["unmapped_tests"]


def test_mixed_conformance(rendered):
    results = results_of(rendered("mixed"))
    impls = {i["name"]: i for i in results["implementations"]}
    assert impls["reference"]["conforming"] is True
    assert impls["buggy"]["conforming"] is False
    assert impls["std"]["available"] is False and impls["std"]["conforming"] is False
    assert results["conforming"] is False, "the run does not conform"
    assert impls["buggy"]["strict_warnings"] == 1 and impls["buggy"]["qoi_findings"] == 1


@pytest.mark.parametrize("row,impl,want", [
    ("H30", "reference", "conforming"), ("H30", "buggy", "non-conforming"),
    ("H31", "buggy", "conforming"), ("R4", "buggy", "warning"), ("R32", "buggy", "qoi-finding"),
    ("R32", "reference", "not-applicable"), ("B2", "buggy", "not-applicable"),
    ("H35", "buggy", "non-conforming"), ("H27", "buggy", "non-conforming"),
    ("H22", "buggy", "not-run"), ("G1", "buggy", "not-testable"), ("H30", "std", "unavailable")])
def test_mixed_requirement_cells(rendered, row, impl, want):
    status = {r["id"]: {k: v["status"] for k, v in r["implementations"].items()}
              for r in results_of(rendered("mixed"))["requirements"]}
    assert status[row][impl] == want


def test_mixed_coverage_mutants_and_summary(rendered):
    out = rendered("mixed")
    results = results_of(out)
    assert "G2" in results["coverage"]["untested_rows"], "an uncovered row is listed as untested"
    assert results["mutants"]["mutants"][0]["id"] == "MH-01", "mutants.json is carried into results.json"
    summary = (out / "summary.md").read_text()
    assert "NOT as expected: MH-05 (survived)" in summary, "summary.md names the surviving mutant"
    assert summary.startswith("# saferecl conformance: NOT conforming"), "summary.md states the verdict"
    for needle in ("| reference saferecl 0.1.0 | conforming |", "| buggy buggy 2.0 | **NOT conforming**",
                   "| std | unavailable:", "**H30**", "## Strict-tier warnings (1)", "## Not built (1)",
                   "swap.pass.cpp", "saferecl.demo/1"):
        assert needle in summary


def test_mixed_page(rendered):
    out = rendered("mixed")
    ids = [r["id"] for r in json.loads(CATALOG.read_text())["rows"]]
    page = checked_page(out / "report.html")
    assert page.cells.get("cell-buggy-H30") == "non-conforming", "the buggy × H30 cell"
    assert page.cells.get("cell-std-H30") == "unavailable", "the unavailable column"
    assert len(page.cells) == len(ids) * 3, "a cell per row and implementation"
    text = (out / "report.html").read_text()
    for needle in ('id="mutants"', "MH-01", 'id="bench"', "hp.protect", "no member named"):
        assert needle in text
    assert re.findall(r'<tr id="req-([A-Z]\d+)"', text) == ids, "the matrix lists the rows in catalog order"


def test_mixed_run_section_says_where_the_time_went(rendered):
    """run.json's timings: the stages, each implementation's test time, the slowest tests."""
    text = (rendered("mixed") / "report.html").read_text()
    section = text[text.index('<section id="run">'):]
    assert "Where the time went" in section and "build 120.0 s" in section
    assert "<td>buggy</td><td>12</td><td>150.3</td>" in section
    assert "60.1</td><td>TIMEOUT</td>" in section and "R29: a hang" in section
    assert "<dt>timings</dt>" not in section, "not also dumped as a raw value"


def test_mixed_page_escapes_what_the_inputs_say(rendered):
    """Autoescaping: a test name with quotes and a '<' in an output are text, not markup."""
    text = (rendered("mixed") / "report.html").read_text()
    assert "with a &#34;quoted&#34; word" in text
    assert "atomic&lt;int*&gt;" in text and "atomic<int*>" not in text


# --- harness: the harness did not build

def test_harness_failure_makes_every_built_test_not_built(rendered):
    out = rendered("harness")
    results = results_of(out)
    by_name = {t["name"].split(":")[0]: t for t in results["tests"]}
    for name in ("saferecl.hp.holder.ctor/1 H22", "saferecl.hp.holder.ctor/1 H21"):
        t = by_name.get(name, {})
        assert t.get("verdict") == "NOT BUILT" and "knobs.cpp" in t.get("output_excerpt", ""), \
            f"{name} is NOT BUILT with the harness's compiler output"
    assert by_name["saferecl.rcu.domain.general R19"]["verdict"] == "PASS", "the compile-fail test still passes"
    reference = results["implementations"][0]
    assert reference["conforming"] is False
    assert any("harness" in w for w in reference["not_conforming_because"])
    checked_page(out / "report.html")


# --- empty: CTest never ran

def test_empty_run_does_not_conform(rendered):
    out = rendered("empty")
    results = results_of(out)
    assert results["conforming"] is False, "a run without tests does not conform"
    assert any("junit.xml is missing" in n for n in results["notes"])
    checked_page(out / "report.html")


# --- bench: a directory of ./conformance bench, no tests

def test_bench_page_is_the_benchmark_table(rendered):
    out = rendered("bench")
    text = (out / "report.html").read_text()
    checked_page(out / "report.html")
    assert 'id="bench"' in text and 'id="matrix"' not in text and 'id="overall"' not in text
    rows = dict(re.findall(r'<tr id="bench-([^"]+)">(.*?)</tr>', text, re.S))
    lock = rows.get("rcu_lock_unlock-1", "")
    assert "1.50 ns" in lock and "12.0 ns" in lock and "8.00&times;" in lock, "medians and the ratio"
    assert 'data-status="unavailable"' in lock, "the unavailable implementation is a cell"
    barrier = rows.get("rcu_barrier-2", "")
    assert "45.0 µs" in barrier and 'data-status="timeout"' in barrier and "within 20 s" in barrier
    assert 'data-status="n/a"' in rows.get("hp_protect_reset-1", "") and "lacks hazard-pointer" in text
    assert "before 0.52 0.80 1.10" in text, "the load average is shown"
    summary = (out / "summary.md").read_text()
    for needle in ("# saferecl benchmarks",
                   "| rcu/lock\\_unlock | 1 | 1.50 ns (1.00×) | 12.0 ns (8.00×) | unavailable |",
                   "| rcu/barrier *wall* | 2 | 45.0 µs (1.00×) | timeout | unavailable |"):
        assert needle in summary
    assert "NOT conforming" not in summary, "summary.md states no verdict"


# --- the command line

def test_cli_usage_errors():
    run = subprocess.run([sys.executable, "-m", "reports"], capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 2 and "usage" in run.stderr, "no arguments: exit 2 with the usage"
    run = subprocess.run([sys.executable, "-m", "reports", "/nonexistent/dir"], capture_output=True,
                         text=True, cwd=REPO)
    assert run.returncode == 2 and "not a directory" in run.stderr


def test_cli_writes_the_reports(tmp_path):
    import shutil
    out = tmp_path / "empty"
    shutil.copytree(Path(__file__).parent / "fixtures" / "empty", out)
    run = subprocess.run([sys.executable, "-m", "reports", str(out), "--title", "T <x>"],
                         capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert (out / "summary.md").read_text().startswith("# T <x>: NOT conforming")
    assert "<title>T &lt;x&gt;</title>" in (out / "report.html").read_text()
