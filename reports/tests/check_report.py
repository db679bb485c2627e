#!/usr/bin/env python3
"""Tests of the report generator (run by CTest in build/report-tool; see reports/CMakeLists.txt).

    check_report.py fixtures --tool BIN --work DIR
        runs the tool on every fixture under fixtures/ (copied into DIR) and checks the
        verdicts, requirement statuses and conformance it derives, and the shape of the
        three outputs
    check_report.py browser --tool BIN --work DIR --chromium BIN
        renders the "mixed" fixture's report.html in headless Chromium from disk, writes
        DIR/report.png, and checks the rendered DOM for a known cell
"""

from __future__ import annotations

import argparse
import html.parser
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
CATALOG = HERE.parent / "catalog" / "requirements.json"
SPEC = HERE.parent.parent.parent / "shared" / "spec" / "requirements.md"  # outside the repo

failures: list[str] = []


def check(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)


def run_tool(tool: str, fixture: str, work: Path) -> Path:
    out = work / fixture
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(FIXTURES / fixture, out, ignore=shutil.ignore_patterns("src", "README.md"))
    proc = subprocess.run([tool, "--in", str(out), "--source-dir", str(FIXTURES / fixture / "src")],
                          capture_output=True, text=True)
    check(proc.returncode == 0, f"{fixture}: the tool exits 0 (got {proc.returncode}: {proc.stderr.strip()})")
    for name in ("results.json", "summary.md", "report.html"):
        check((out / name).is_file() and (out / name).stat().st_size > 0, f"{fixture}: {name} is written")
    leftovers = [p.name for p in out.iterdir() if ".tmp" in p.name]
    check(not leftovers, f"{fixture}: no temporary files are left ({leftovers})")
    return out


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


def check_page(fixture: str, path: Path) -> Page:
    page = Page()
    text = path.read_text()
    page.feed(text)
    check(page.scripts == 0, f"{fixture}: report.html has no script")
    check(not page.external, f"{fixture}: report.html loads nothing ({page.external})")
    check("@import" not in text and "url(" not in text, f"{fixture}: the CSS loads nothing")
    return page


def fixtures(tool: str, work: Path) -> None:
    work.mkdir(parents=True, exist_ok=True)

    # --- the catalog: every row of requirements.md, in a known order, nothing twice
    catalog = json.loads(CATALOG.read_text())
    ids = [r["id"] for r in catalog["rows"]]
    check(len(ids) == len(set(ids)), "catalog: row ids are unique")
    clauses = [c["key"] for c in catalog["clauses"]]
    check(all(r["clause"] in clauses for r in catalog["rows"]), "catalog: every row names a known clause")
    order = [clauses.index(r["clause"]) for r in catalog["rows"]]
    check(order == sorted(order), "catalog: rows are grouped in clause order")
    if SPEC.is_file():
        spec_ids = re.findall(r"^\| ([GRHB]\d+) \|", SPEC.read_text(), re.M)
        check(set(spec_ids) == set(ids),
              f"catalog matches requirements.md (missing {sorted(set(spec_ids) - set(ids))}, "
              f"extra {sorted(set(ids) - set(spec_ids))})")

    # --- mixed: every verdict kind, an unavailable adapter, mutants and benchmarks
    out = run_tool(tool, "mixed", work)
    results = json.loads((out / "results.json").read_text())
    verdict = {(t["implementation"], t["name"].split(":")[0]): t for t in results["tests"]}

    def expect(impl: str, prefix: str, want: str, detail: str = "", headline: str = "") -> None:
        t = verdict.get((impl, prefix))
        check(t is not None, f"mixed: {impl}/{prefix} is reported")
        if t is None:
            return
        check(t["verdict"] == want, f"mixed: {impl}/{prefix} is {want} (got {t['verdict']}: {t['detail']})")
        if detail:
            check(detail in t["detail"], f"mixed: {impl}/{prefix} detail mentions '{detail}' (got '{t['detail']}')")
        if headline:
            check(headline in t["headline"], f"mixed: {impl}/{prefix} headline has '{headline}' (got '{t['headline']}')")

    expect("reference", "saferecl.hp.holder.mem/5 H30", "PASS")
    expect("reference", "saferecl.rcu.domain.general R19", "PASS")
    expect("reference", "saferecl.rcu.domain.func/2 R32", "NOT APPLICABLE")
    expect("buggy", "saferecl.hp.holder.mem/5 H30", "FAIL", "exit status 1", "CHECK( !ok )")
    expect("buggy", "saferecl.rcu.domain.func/3 R30", "FAIL", "sanitizer report", "ThreadSanitizer: data race")
    expect("buggy", "saferecl.rcu.domain.general R19", "FAIL", "compile check", "FAIL: compiled")
    expect("buggy", "saferecl.hp.holder.mem/3 H27", "TIMEOUT", "while compiling")
    expect("buggy", "saferecl.rcu.domain.func/4 R33", "TIMEOUT", "watchdog", "rcu_barrier()")
    expect("buggy", "saferecl.rcu.domain.func/1 R28", "TIMEOUT", "killed by CTest")
    expect("buggy", "saferecl.hp.general/6 H8", "CRASH", "SIGSEGV")
    expect("buggy", "saferecl.hp.general/5 H5", "CRASH", "deadly signal", "AddressSanitizer: SEGV")
    expect("buggy", "saferecl.hp.holder.mem/14 H35", "NOT BUILT", "does not compile", "no member named 'swap'")
    expect("buggy", "saferecl.hp.holder.nonmem/4 H37", "NOT BUILT")
    expect("buggy", "saferecl.hp.holder.nonmem/5 B2", "NOT APPLICABLE", "lacks: hp-batch")
    expect("buggy", "saferecl.hp.holder.nonmem/5 B7", "NOT APPLICABLE")
    check(("buggy", "saferecl.hp.holder.ctor/1 H22") not in verdict, "mixed: a filtered-out test is not reported")
    check(results["tests_not_run"] == 1, "mixed: one listed test did not run")
    check(not any("this mention in a comment" in t["name"] for t in results["tests"]),
          "mixed: TEST_CASE in a comment is not a test")
    h37 = verdict.get(("buggy", "saferecl.hp.holder.nonmem/4 H37"), {})
    check('"quoted"' in h37.get("name", ""), "mixed: escaped quotes in a TEST_CASE name are read")
    stress = verdict.get(("buggy", "saferecl.hp.general/6 H8"), {})
    check(stress.get("seed") == "7", "mixed: a stress test's printed seed is recorded")
    h99 = verdict.get(("reference", "saferecl.hp.holder.mem/5 H99"), {})
    check(h99.get("mapping") == "paragraph" and "H30" in h99.get("requirements", []),
          "mixed: an unknown row id falls back to the paragraph")
    check(any("H99" in n for n in results["notes"]), "mixed: the unknown id is noted")
    check("buggy/saferecl.demo/1 a failing test with no requirement row" in results["unmapped_tests"],
          "mixed: a test without a row is listed as unmapped")

    impls = {i["name"]: i for i in results["implementations"]}
    check(impls["reference"]["conforming"] is True, "mixed: reference conforms")
    check(impls["buggy"]["conforming"] is False, "mixed: buggy does not conform")
    check(impls["std"]["available"] is False and impls["std"]["conforming"] is False,
          "mixed: std is unavailable")
    check(results["conforming"] is False, "mixed: the run does not conform")
    check(impls["buggy"]["strict_warnings"] == 1 and impls["buggy"]["qoi_findings"] == 1,
          "mixed: one strict warning and one QoI finding for buggy")

    status = {r["id"]: {k: v["status"] for k, v in r["implementations"].items()} for r in results["requirements"]}
    for row, impl, want in [("H30", "reference", "conforming"), ("H30", "buggy", "non-conforming"),
                            ("H31", "buggy", "conforming"), ("R4", "buggy", "warning"),
                            ("R32", "buggy", "qoi-finding"), ("R32", "reference", "not-applicable"),
                            ("B2", "buggy", "not-applicable"), ("H35", "buggy", "non-conforming"),
                            ("H27", "buggy", "non-conforming"), ("H22", "buggy", "untested"),
                            ("G1", "buggy", "not-testable"), ("H30", "std", "unavailable")]:
        check(status[row][impl] == want, f"mixed: {row} × {impl} is {want} (got {status[row][impl]})")
    check("G2" in results["coverage"]["untested_rows"], "mixed: an uncovered row is listed as untested")
    check(results["mutants"]["mutants"][0]["id"] == "MH-01", "mixed: mutants.json is carried into results.json")
    check("NOT as expected: MH-05 (survived)" in (out / "summary.md").read_text(), "mixed: summary.md names the surviving mutant")

    summary = (out / "summary.md").read_text()
    check(summary.startswith("# saferecl conformance: NOT conforming"), "mixed: summary.md states the verdict")
    for needle in ("| reference saferecl 0.1.0 | conforming |", "| buggy buggy 2.0 | **NOT conforming**",
                   "| std | unavailable:", "**H30**", "## Strict-tier warnings (1)", "## Not built (1)",
                   "swap.pass.cpp", "saferecl.demo/1"):
        check(needle in summary, f"mixed: summary.md has '{needle}'")

    page = check_page("mixed", out / "report.html")
    check(page.cells.get("cell-buggy-H30") == "non-conforming", "mixed: report.html has the buggy × H30 cell")
    check(page.cells.get("cell-std-H30") == "unavailable", "mixed: report.html has the unavailable column")
    check(len(page.cells) == len(ids) * 3, "mixed: the matrix has a cell per row and implementation")
    text = (out / "report.html").read_text()
    for needle in ('id="mutants"', "MH-01", 'id="bench"', "hp.protect", "no member named"):
        check(needle in text, f"mixed: report.html has '{needle}'")
    rows_in_page = re.findall(r'<tr id="req-([A-Z]\d+)"', text)
    check(rows_in_page == ids, "mixed: the matrix lists the rows in catalog order")

    # --- harness: the harness did not build
    out = run_tool(tool, "harness", work)
    results = json.loads((out / "results.json").read_text())
    by_name = {t["name"].split(":")[0]: t for t in results["tests"]}
    for name in ("saferecl.hp.holder.ctor/1 H22", "saferecl.hp.holder.ctor/1 H21"):
        t = by_name.get(name, {})
        check(t.get("verdict") == "NOT BUILT" and "knobs.cpp" in t.get("output_excerpt", ""),
              f"harness: {name} is NOT BUILT with the harness's compiler output")
    check(by_name.get("saferecl.rcu.domain.general R19", {}).get("verdict") == "PASS",
          "harness: the compile-fail test still passes")
    reference = results["implementations"][0]
    check(reference["conforming"] is False and any("harness" in w for w in reference["not_conforming_because"]),
          "harness: the implementation does not conform because of the harness")
    check_page("harness", out / "report.html")

    # --- empty: CTest never ran
    out = run_tool(tool, "empty", work)
    results = json.loads((out / "results.json").read_text())
    check(results["conforming"] is False, "empty: a run without tests does not conform")
    check(any("junit.xml is missing" in n for n in results["notes"]), "empty: the missing junit.xml is noted")
    check_page("empty", out / "report.html")

    # --- bench: a directory of ./conformance bench, no tests
    out = run_tool(tool, "bench", work)
    text = (out / "report.html").read_text()
    check_page("bench", out / "report.html")
    check('id="bench"' in text and 'id="matrix"' not in text and 'id="overall"' not in text,
          "bench: report.html is the benchmark table, without a verdict or a matrix")
    rows = dict(re.findall(r'<tr id="bench-([^"]+)">(.*?)</tr>', text, re.S))
    lock = rows.get("rcu_lock_unlock-1", "")
    check("1.50 ns" in lock and "12.0 ns" in lock and "8.00&times;" in lock,
          "bench: rcu/lock_unlock at 1 thread shows the medians and the ratio")
    check('data-status="unavailable"' in lock, "bench: the unavailable implementation is a cell")
    barrier = rows.get("rcu_barrier-2", "")
    check("45.0 µs" in barrier and 'data-status="timeout"' in barrier and "within 20 s" in barrier,
          "bench: a timed-out case shows its reason, next to a wall-clock time in µs")
    check('data-status="n/a"' in rows.get("hp_protect_reset-1", "") and "lacks hazard-pointer" in text,
          "bench: a case the adapter cannot run is n/a with the missing capability")
    check("before 0.52 0.80 1.10" in text, "bench: the load average is shown")
    summary = (out / "summary.md").read_text()
    for needle in ("# saferecl benchmarks", "| rcu/lock\\_unlock | 1 | 1.50 ns (1.00×) | 12.0 ns (8.00×) | unavailable |",
                   "| rcu/barrier *wall* | 2 | 45.0 µs (1.00×) | timeout | unavailable |"):
        check(needle in summary, f"bench: summary.md has '{needle}'")
    check("NOT conforming" not in summary, "bench: summary.md states no verdict")

    # --- usage errors
    proc = subprocess.run([tool], capture_output=True, text=True)
    check(proc.returncode == 2 and "usage" in proc.stderr, "no arguments: exit 2 with the usage")


def browser(tool: str, work: Path, chromium: str) -> None:
    if not chromium or not Path(chromium).exists():
        check(False, f"chromium is installed (got '{chromium}'; ./conformance test installs it)")
        return
    work.mkdir(parents=True, exist_ok=True)
    out = run_tool(tool, "mixed", work)
    page = out / "report.html"
    # The selftest's own copy sits at a stable path: reports/out/selftest/report.{html,png}.
    shutil.copy(page, work / "report.html")
    png = work / "report.png"
    png.unlink(missing_ok=True)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--hide-scrollbars"]
    url = (work / "report.html").as_uri()
    with tempfile.TemporaryDirectory() as profile:
        shot = subprocess.run([chromium, *flags, f"--user-data-dir={profile}", "--window-size=1366,2400",
                               f"--screenshot={png}", url], capture_output=True, text=True, timeout=120)
    check(shot.returncode == 0, f"chromium takes a screenshot (exit {shot.returncode}: {shot.stderr[-500:]})")
    check(png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20000,
          f"a screenshot of the rendered page is written to {png}")
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run([chromium, *flags, f"--user-data-dir={profile}", "--dump-dom", url],
                             capture_output=True, text=True, timeout=120)
    check(dom.returncode == 0, f"chromium dumps the DOM (exit {dom.returncode})")
    cell = re.search(r'<td id="cell-buggy-H30" class="([^"]*)" data-status="([^"]*)">(.*?)</td>', dom.stdout, re.S)
    check(cell is not None, "the rendered DOM has the buggy × H30 cell")
    if cell:
        check("s-bad" in cell[1] and cell[2] == "non-conforming", "the cell is coloured non-conforming")
        check("FAIL" in cell[3] and "CHECK( !ok )" in cell[3], "the cell holds the verdict and the failure output")
    check("NOT conforming" in dom.stdout, "the rendered page states the verdict")
    print(f"screenshot: {png}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["fixtures", "browser"])
    parser.add_argument("--tool", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--chromium", default="")
    args = parser.parse_args()
    if args.mode == "fixtures":
        fixtures(args.tool, Path(args.work))
    else:
        browser(args.tool, Path(args.work), args.chromium)
    print(f"{args.mode}: {'FAILED (' + str(len(failures)) + ')' if failures else 'all checks passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
