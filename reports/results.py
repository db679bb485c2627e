"""results.json (schema "saferecl-results/1"): everything the report knows, for machines."""

from __future__ import annotations

import json

from reports import expectations, protocol, soak
from reports.facts import GENERATOR, RESULTS_SCHEMA, impl_verdict
from reports.model import Report
from reports.mutants import mutant_coverage


def results_document(report: Report) -> dict:
    doc: dict = {"schema": RESULTS_SCHEMA, "generator": GENERATOR, "title": report.title,
                 "conforming": report.conforming, "not_judged": report.not_judged,
                 "run": report.run, "notes": report.notes}
    doc["implementations"] = [{
        "name": i.name, "available": i.available, "selected": i.selected, "reason": i.reason,
        "version": i.version, "limits": i.limits, "capabilities": i.capabilities,
        "conforming": i.conforming, "not_conforming_because": i.why_not,
        "verdict": impl_verdict(i), "inconclusive": i.inconclusive,
        **({"not_judged_because": i.not_judged_because} if i.not_judged else {}),
        "core_failures": i.core_failures, "strict_warnings": i.strict_warnings,
        "qoi_findings": i.qoi_findings, "not_built_sources": i.not_built_sources,
        "counts": {v: i.counts.get(v, 0) for v in protocol.VERDICTS},
        "requirements": dict(i.row_counts),
        **({"outcomes": dict(i.outcome_counts)} if report.expectations is not None else {}),
    } for i in report.impls]

    tests = []
    for t in report.tests:
        o = {"implementation": t.impl, "name": t.name, "ctest_name": t.ctest_name,
             "verdict": t.verdict, "detail": t.detail, "tier": t.tier, "kind": t.kind,
             "group": t.group, "source": t.source, "origin": t.origin,
             "requirements": t.requirements, "stable_name": t.stable, "paragraph": t.paragraph,
             "mapping": t.mapping}
        if t.unknown_ids:
            o["unknown_ids"] = t.unknown_ids
        o.update(duration_s=t.duration, timeout_s=t.timeout, exit_status=t.exit_status, seed=t.seed)
        if t.config:
            o["config"] = t.config
        o.update(headline=t.headline, output_excerpt=t.excerpt)
        if t.widened:  # an addition within schema 1: what the TSan fence model widened
            o["fence_model_widened"] = t.widened
        if t.repro:  # an addition within schema 1: the standalone reproducer's command
            o["repro"] = t.repro
        if report.expectations is not None:
            o["outcome"] = t.outcome
            if t.expected is not None:
                o["expected"] = t.expected.to_json()
        tests.append(o)
    doc["tests"] = tests
    doc["tests_not_run"] = report.tests_not_run

    doc["requirements"] = [{
        "id": row.id, "clause": row.clause, "ref": row.ref, "paragraphs": row.paras,
        "kind": row.kind, "tier": row.tier, "testable": row.testable, "summary": row.summary,
        "implementations": {
            impl.name: {"status": report.cells[row.id][impl.name].status,
                        "tests": [report.tests[n].name for n in report.cells[row.id][impl.name].tests]}
            for impl in report.impls},
    } for row in report.rows]

    covered = {row_id for t in report.tests for row_id in t.requirements
               if t.verdict != protocol.VERDICT_NOT_RUN}  # a row of this run's tests
    testable = [row for row in report.rows if row.testable]
    doc["coverage"] = {
        "rows": len(report.rows), "testable_rows": len(testable),
        "testable_rows_with_tests": sum(1 for row in testable if row.id in covered),
        "rows_with_tests": len(covered),  # including design-rule rows a test cites
        "untested_rows": [row.id for row in testable if row.id not in covered],
        "catalog": report.catalog_path}
    doc["unmapped_tests"] = [f"{report.tests[n].impl}/{report.tests[n].name}" for n in report.unmapped]
    doc["build_failures"] = [{"implementation": f.impl or None, "source": f.source or None,
                              "executable": f.executable, "log": f.log}
                             for f in report.build_failures]
    if report.expectations is not None:
        doc["expectations"] = expectations_summary(report)
    if report.soak is not None:  # an addition within schema 1: the rounds of --repeat
        doc["soak"] = {**report.soak, "failing": soak.failing_with_replay(report.soak, report.run)}
    if report.mutants is not None:
        doc["mutants"] = report.mutants
        # An addition within schema 1 (reports/README.md): the mutant coverage per row.
        doc["mutant_coverage"] = [{"row": c.row, "killed": c.killed, "aimed": c.aimed, "weak": c.weak}
                                  for c in mutant_coverage(report)]
    if report.bench is not None:
        doc["bench"] = report.bench
    return doc


def expectations_summary(report: Report) -> dict:
    """results.json "expectations" (an addition within schema 1, reports/README.md): the
    decision a CI job gates on, "nothing_unexpected", and what it rests on."""
    e = report.expectations
    return {"schema": expectations.SCHEMA, "source": report.expectation_source,
            "nothing_unexpected": e.nothing_unexpected,
            "counts": {o: e.count(o) for o in (expectations.EXPECTED_FAIL, expectations.UNEXPECTED_PASS,
                                               expectations.NEW_FAILURE)},
            "unexpected": e.unexpected, "problems": e.problems, "not_in_run": e.not_in_run}


def results_json(report: Report) -> str:
    return json.dumps(results_document(report), indent=1, ensure_ascii=False) + "\n"
