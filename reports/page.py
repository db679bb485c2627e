"""report.html: one self-contained page (inline CSS, no script, nothing loaded), rendered
from the Jinja2 templates in reports/templates/ with autoescaping on. This module prepares
what the templates show; the markup is in the templates."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from reports import expectations, protocol, soak
from reports.bench import bench_table
from reports.bench_targets import judge_ceilings, judge_targets
from reports.curves import bench_curves, chart, comparison_chart
from reports.epoch_ends import epoch_ends
from reports.classify import excerpt_of, parse_test_name
from reports.facts import (GENERATOR, dump, findings, impl_verdict, run_line, run_verdict, runtime_caveat,
                           runtime_line)
from reports.model import VERDICT_CSS, Report, Status
from reports.mutants import WEAK_BELOW, mutant_coverage, mutants_of
from reports.stats import format_ns
from reports.text import fixed, seconds, slug

OUTCOME_CSS = {expectations.EXPECTED_FAIL: "o-expected", expectations.NEW_FAILURE: "o-new",
               expectations.UNEXPECTED_PASS: "o-xpass"}
TEMPLATES = Path(__file__).resolve().parent / "templates"
DRAFT_REF = re.compile(r"\[([a-z.]+)\](?:/([0-9]+))?")
DEFAULT_TITLE = {"run": "saferecl conformance report", "bench": "saferecl conformance report",
                 "mutants": "saferecl mutants"}
# The worst verdict among a cell's tests names the cell.
VERDICT_RANK = {protocol.VERDICT_CRASH: 5, protocol.VERDICT_TIMEOUT: 4, protocol.VERDICT_FAIL: 3,
                protocol.VERDICT_NOT_BUILT: 2, protocol.VERDICT_INCONCLUSIVE: 1}


def draft_url(ref: str) -> str:
    """The current working draft's page of a "[stable.name]/N" reference, or ""."""
    m = DRAFT_REF.search(ref)
    if not m:
        return ""
    return f"https://eel.is/c++draft/{m[1]}" + (f"#{m[2]}" if m[2] else "")


def worst_verdict(report: Report, tests: list[int]) -> str:
    worst = protocol.VERDICT_PASS
    for n in tests:
        if VERDICT_RANK.get(report.tests[n].verdict, 0) > VERDICT_RANK.get(worst, 0):
            worst = report.tests[n].verdict
    return worst


def clause_coverage(report: Report) -> dict[str, dict]:
    """Per clause: rows, testable rows, testable rows with tests, the untested ones."""
    out = {}
    for clause in report.clauses:
        rows = [r for r in report.rows if r.clause == clause.key]
        testable = [r for r in rows if r.testable]
        untested = [r.id for r in testable
                    if not any(c.tests for c in report.cells[r.id].values())]
        out[clause.key] = {"rows": len(rows), "testable": len(testable),
                           "tested": len(testable) - len(untested), "untested": untested}
    return out


def kill_matrix(report: Report, mutants) -> tuple[list[str], dict[str, set[str]]]:
    """The requirement rows cited by killing tests (catalog order), and per mutant its rows."""
    kills = {m.id: {i for test, _ in m.killed_by for i in parse_test_name(test).ids} for m in mutants}
    cited = set().union(*kills.values()) if kills else set()
    return [r.id for r in report.rows if r.id in cited], kills


def run_value(value: object) -> str:
    """A run.json value as the Run section shows it: lists joined, text as is."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(v if isinstance(v, str) else dump(v) for v in value)
    return dump(value)


def chart_files(report: Report) -> dict[str, str]:
    """A bench run's curves as standalone SVG files (name -> content), the same drawings as
    the page's, to embed elsewhere (the README's benchmark section)."""
    if report.bench is None:
        return {}
    template = environment().get_template("curve.svg.j2")
    return {f"{slug(c.key)}.svg":
            template.render(c=c, g=chart(c)) for c in bench_curves(bench_table(report.bench))}


def soak_rounds(report: Report) -> dict:
    """--repeat: the rounds' seeds and the tests that failed in some round, each with its replay."""
    seeds = report.soak.get("seeds") or []
    return {"rounds": report.soak.get("rounds", len(seeds)), "seeds": seeds,
            "failing": soak.failing_with_replay(report.soak, report.run)}


def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.globals.update(
        protocol=protocol, Status=Status, VERDICT_CSS=VERDICT_CSS, GENERATOR=GENERATOR,
        draft_url=draft_url, slug=slug, fixed=fixed, seconds=seconds, format_ns=format_ns,
        excerpt_of=excerpt_of, run_value=run_value, WEAK_BELOW=WEAK_BELOW, OUTCOME_CSS=OUTCOME_CSS)
    return env


def report_html(report: Report) -> str:
    mutants = mutants_of(report.mutants) if report.mutants is not None else []
    kill_rows, kills = kill_matrix(report, mutants)
    not_built: dict[tuple[str, str], list] = {}
    for t in report.tests:
        if t.verdict == protocol.VERDICT_NOT_BUILT:
            not_built.setdefault((t.impl, t.source), []).append(t)
    table = bench_table(report.bench) if report.bench is not None else None
    return environment().get_template("report.html.j2").render(
        r=report, title=report.title or DEFAULT_TITLE[report.command], run_line=run_line(report), runtime_caveat=runtime_caveat(report),
        runtime_line=runtime_line(report), run_verdict=run_verdict(report), impl_verdict=impl_verdict,
        findings={s: findings(report, s) for s in (Status.NON_CONFORMING, Status.NOT_JUDGED, Status.WARNING, Status.QOI)},
        loose=[n for n in report.unmapped if report.tests[n].failing],
        coverage=clause_coverage(report),
        epoch_ends=[e for e in epoch_ends(report) if e.core or e.qoi],
        worst_verdict=lambda cell: worst_verdict(report, cell.tests),
        passes=lambda cell: sum(1 for n in cell.tests if report.tests[n].verdict == protocol.VERDICT_PASS),
        failure_keys={(f.impl, f.source) for f in report.build_failures},
        not_built=not_built, mutants=mutants, kill_rows=kill_rows, kills=kills,
        mutant_coverage=mutant_coverage(report),
        bench=table, curves=bench_curves(table) if table else [], chart=chart,
        comparison=comparison_chart(table) if table else None,
        targets=judge_targets(table) if table else [],
        ceilings=judge_ceilings(table) if table else [],
        soak=soak_rounds(report) if report.soak is not None else None)
