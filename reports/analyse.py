"""Maps tests to requirement rows and decides every cell and every implementation's verdict.

A test's row ids come from its name (through the index): every G/R/H/B id before the first
':' that the catalog knows. Without one, the stable name and paragraph select the rows of
that clause that list the paragraph. An implementation conforms when it is available, no
normative test of it failed (FAIL, TIMEOUT, CRASH, NOT BUILT), the harness built, and at
least one test passed; the run conforms when every selected available implementation
conforms and none selected by name is unavailable.
"""

from __future__ import annotations

import shlex

from reports import expectations, protocol
from reports.classify import parse_test_name
from reports.model import Cell, Report, Status, Test


def without_prefix(stable: str) -> str:
    return stable[len("saferecl."):] if stable.startswith("saferecl.") else stable


def rows_of(report: Report, stable: str, paragraph: str, ids) -> tuple[list[str], list[str], str]:
    """(catalog rows, ids the catalog lacks, mapping) of a test named with these parts."""
    known = [i for i in ids if report.row(i)]
    unknown = [i for i in ids if not report.row(i)]
    if known:
        return known, unknown, "row-id"
    if not stable or not paragraph:
        return [], unknown, "none"
    para = int(paragraph)
    by_paragraph = [r.id for r in report.rows
                    if without_prefix(r.clause) == without_prefix(stable) and para in r.paras]
    return by_paragraph, unknown, "paragraph" if by_paragraph else "none"


def rows_of_name(report: Report, name: str) -> list[str]:
    """The catalog rows of a bare test name (a killing test of mutants.json)."""
    parts = parse_test_name(name)
    return rows_of(report, parts.stable, parts.paragraph, parts.ids)[0]


def map_to_rows(report: Report, t: Test) -> None:
    if not t.stable and not t.ids:  # a test the index does not describe: its name says it
        parts = parse_test_name(t.name)
        t.stable, t.paragraph, t.ids = parts.stable, parts.paragraph, parts.ids
    t.requirements, t.unknown_ids, t.mapping = rows_of(report, t.stable, t.paragraph, t.ids)


def cell_status(report: Report, tests: list[int]) -> str:
    bad = warn = qoi = passed = unjudged = False
    if all(report.tests[i].verdict == protocol.VERDICT_NOT_RUN for i in tests):
        return Status.NOT_RUN
    for i in tests:
        t = report.tests[i]
        unjudged = unjudged or t.verdict == protocol.VERDICT_INCONCLUSIVE
        if t.failing:
            if t.tier == "strict":
                warn = True
            elif t.tier == "qoi":
                qoi = True
            else:
                bad = True
        passed = passed or t.verdict == protocol.VERDICT_PASS
    if bad:
        return Status.NON_CONFORMING
    if unjudged:
        return Status.NOT_JUDGED
    if warn:
        return Status.WARNING
    if qoi:
        return Status.QOI
    return Status.CONFORMING if passed else Status.NOT_APPLICABLE  # every test not applicable


def repro_command(report: Report, t) -> str:
    """`./conformance repro` of a test that ran and failed (or was not judged): the command
    that writes its standalone reproducer (driver/repro.py) from this run's directory."""
    if t.origin != "ctest" or t.kind == "compile-fail" or not t.ctest_name or not report.in_dir or (
            not t.failing and t.verdict != protocol.VERDICT_INCONCLUSIVE):
        return ""
    directory = report.in_dir[:-len(".partial")] if report.in_dir.endswith(".partial") else report.in_dir
    return f"./conformance repro {shlex.quote(t.ctest_name)} --run {shlex.quote(directory)}"


def analyse(report: Report) -> None:
    # A stable order: implementations as configured, then test name.
    order = {impl.name: n for n, impl in enumerate(report.impls)}
    report.tests.sort(key=lambda t: (order.get(t.impl, len(report.impls)), t.name.encode()))

    unknown: set[str] = set()
    for n, t in enumerate(report.tests):
        t.repro = repro_command(report, t)
        map_to_rows(report, t)
        unknown.update(t.unknown_ids)
        if not t.requirements:
            report.unmapped.append(n)
    if unknown:
        report.notes.append("test names cite requirement ids the catalog does not have: "
                            + ", ".join(sorted(unknown)))
    for t in report.tests:
        if not report.impl(t.impl):
            report.notes.append(f"test '{t.ctest_name}' belongs to no known implementation")

    tests_by_cell: dict[tuple[str, str], list[int]] = {}
    for n, t in enumerate(report.tests):
        for row_id in t.requirements:
            tests_by_cell.setdefault((row_id, t.impl), []).append(n)
    for row in report.rows:
        report.cells[row.id] = {}
        for impl in report.impls:
            cell = Cell(tests=tests_by_cell.get((row.id, impl.name), []))
            if not impl.available:
                cell.status = Status.UNAVAILABLE
            elif cell.tests:
                cell.status = cell_status(report, cell.tests)
            else:
                cell.status = Status.UNTESTED if row.testable else Status.NOT_TESTABLE
            report.cells[row.id][impl.name] = cell

    any_available, all_conform = False, True
    explicit_selection = bool(report.run.get("explicit_selection", False))
    harness = [f for f in report.build_failures if not f.impl]
    for impl in report.impls:
        impl.counts = {v: 0 for v in protocol.VERDICTS}
        not_built: set[str] = set()
        for t in report.tests:
            if t.impl != impl.name:
                continue
            impl.counts[t.verdict] += 1
            if t.verdict == protocol.VERDICT_INCONCLUSIVE and t.tier not in ("strict", "qoi"):
                impl.inconclusive += 1
                impl.not_judged_because = impl.not_judged_because or t.detail
            if not t.failing:
                continue
            if t.verdict == protocol.VERDICT_NOT_BUILT:
                not_built.add(t.source)
            if t.tier == "strict":
                impl.strict_warnings += 1
            elif t.tier == "qoi":
                impl.qoi_findings += 1
            else:
                impl.core_failures += 1
        impl.not_built_sources = len(not_built)
        impl.row_counts = {}
        for status in Status.ALL:  # in the order of the C++ tool's enum: results.json keeps it
            n = sum(1 for row in report.rows if report.cells[row.id][impl.name].status == status)
            if n:
                impl.row_counts[status] = n
        if not impl.available:
            impl.why_not.append("unavailable: " + impl.reason)
        else:
            if impl.core_failures:
                impl.why_not.append(f"{impl.core_failures} failing normative (core/cxx29) test(s)")
            for f in harness:
                impl.why_not.append(f"the test harness did not build ({f.executable})")
            if impl.counts[protocol.VERDICT_PASS] == 0:
                impl.why_not.append("no test passed")
            if impl.inconclusive and not impl.why_not:
                impl.not_judged = True
                impl.why_not.append(f"not judged in this tier: {impl.inconclusive} normative test(s) "
                                    "failed only on evidence the run could not judge (a sanitizer "
                                    "report the sanitizer could not see through, or a hang or "
                                    "stall while other load starved the process)")
        impl.conforming = not impl.why_not
        if not impl.selected:
            continue
        if impl.available:
            any_available = True
            all_conform = all_conform and impl.conforming
        elif explicit_selection:
            all_conform = False
    report.conforming = any_available and all_conform
    report.not_judged = [i.name for i in report.impls if i.selected and i.not_judged]
    apply_expectations(report)


def apply_expectations(report: Report) -> None:
    """Each test's outcome under the directory's expectations (when it has some), and what
    the run holds that is unexpected without being a test: an implementation chosen by name
    that is missing, CTest that never ran."""
    if report.expectation_entries is None:
        return
    observed = [expectations.Observed(t.ctest_id, t.verdict,
                                      t.stable + (f"/{t.paragraph}" if t.paragraph else ""),
                                      t.headline) for t in report.tests]
    evaluation = expectations.evaluate(report.expectation_entries, observed,
                                       report.run.get("sanitizer"))
    for t in report.tests:
        t.outcome = evaluation.outcomes[t.ctest_id]
        t.expected = evaluation.matched.get(t.ctest_id)
    for impl in report.impls:
        impl.outcome_counts = {}
        for t in report.tests:
            if t.impl == impl.name:
                impl.outcome_counts[t.outcome] = impl.outcome_counts.get(t.outcome, 0) + 1
        if impl.selected and not impl.available and report.run.get("explicit_selection"):
            evaluation.problems.append(f"{impl.name} was chosen by name and is unavailable: {impl.reason}")
    if not report.ctest_ran:
        evaluation.problems.append("CTest did not run")
    report.expectations = evaluation
