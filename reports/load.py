"""Reads a report directory (what the build, CTest and ./conformance wrote there) and the
requirement catalog into a Report.

Problems with optional or damaged inputs become Report.notes rather than errors, so a broken
run still gets a report; only a broken requirement catalog (part of the repository) stops.

Where each test comes from:
- every <testcase> of junit.xml is a test, described by its index.json entry (tier, kind,
  group, source, TIMEOUT); a test the index lacks keeps what its name says;
- every index entry that never reached CTest is a test too: NOT APPLICABLE (the adapter
  lacks a capability), NOT BUILT (its source did not compile, or its executable was not
  built: a harness or link failure of build-failures.json), or NOT RUN when the run's CTest
  arguments (-R, -E, -L, -LE: run.json's selection) left it out: a test the selection did
  not take says nothing, not even that its adapter lacks a capability (reports/selection.py).
  The built tests left out are also counted in tests_not_run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from reports import crash_stacks, evidence, expectations, protocol, selection, tsan_evidence
from reports.classify import classify, excerpt_of, headline_of, seed_and_config
from reports.index import IndexEntry, InputProblem, read_index
from reports.junit import read_junit
from reports.model import BuildFailure, Clause, Implementation, Report, Row, Test

REPORTS_DIR = Path(__file__).resolve().parent
CATALOG = REPORTS_DIR / "catalog" / "requirements.json"
MUTANT_CATALOG = REPORTS_DIR.parent / "adapters" / "mutants" / "catalog.json"

# The name of the failing test that discover_tests.cmake adds for an executable that could
# not list its test cases: "<impl>/<group>: listing the test cases".
EXPECTATIONS_FILE = "expectations.json"
LISTING_FAILURE = re.compile(r"^([^/]+)/([^/:]+): listing the test cases$")


def read_json(path: Path, report: Report, required: bool):
    if not path.is_file():
        if required:
            report.notes.append(f"{path.name} is missing")
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        report.notes.append(f"{path.name} is unreadable: {e}")
        return None


def text(obj: dict, key: str) -> str:
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else ""


def read_catalog(path: Path, report: Report) -> None:
    try:
        catalog = json.loads(path.read_text(encoding="utf-8"))
        report.clauses = [Clause(c["key"], c["title"]) for c in catalog["clauses"]]
        report.rows = [Row(id=r["id"], clause=r["clause"], ref=text(r, "ref"), kind=text(r, "kind"),
                           tier=text(r, "tier"), summary=text(r, "summary"),
                           paras=[int(p) for p in r.get("paras", [])],
                           testable=bool(r.get("testable", True)))
                       for r in catalog["rows"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputProblem(f"requirement catalog {path}: {e}") from None


def read_implementations(out: Path, report: Report) -> None:
    selected = set(report.run.get("implementations") or [])
    impls = read_json(out / "implementations.json", report, True)
    for i in impls if isinstance(impls, list) else []:
        report.impls.append(Implementation(
            name=text(i, "name"), available=bool(i.get("available", False)), reason=text(i, "reason"),
            version=text(i, "version"), limits=text(i, "limits"),
            capabilities=[c for c in i.get("capabilities", []) if isinstance(c, str)],
            selected=not selected or text(i, "name") in selected))


def read_build_failures(out: Path, report: Report) -> None:
    failures = read_json(out / "build-failures.json", report, False)
    for f in failures if isinstance(failures, list) else []:
        report.build_failures.append(BuildFailure(
            impl=text(f, "implementation"), source=text(f, "source"),
            executable=text(f, "executable"), log=text(f, "log")))


def unbuilt_executables(report: Report, index: list[IndexEntry]) -> set[str] | None:
    """The battery executables that did not come out of the build, from the failures that
    belong to no single source (implementation null); None means all of them (a failure in
    the shared harness, which every executable links)."""
    known = {e.executable for e in index if e.executable}
    broken: set[str] = set()
    for f in report.build_failures:
        if f.impl:
            continue  # one source of one implementation: rebuilt without it
        parts = re.split(r"[/\\]", f.executable)
        named = [exe for exe in known if exe in parts or f"{exe}.dir" in parts]
        if not named:
            return None
        broken.update(named)
    return broken


def read_expectations(out: Path, report: Report) -> None:
    """expectations.json: the known failures the driver applied to the run (a copy of the
    adapters' files or --expect FILE); a broken copy is a note, and counts as unexpected."""
    path = out / EXPECTATIONS_FILE
    if not path.is_file():
        return
    doc = read_json(path, report, False)
    try:
        report.expectation_entries = expectations.parse(doc, path.name)
        report.expectation_source = text(doc, "comment")
    except expectations.ExpectationsError as e:
        report.notes.append(str(e))
        report.expectation_entries = []
        report.expectation_source = f"{path.name} (unreadable: every failure counts as new)"


def read_crash_stacks(out: Path, report: Report) -> None:
    """crash-stacks.json (driver/crash_stack.py): a crash that printed no stack, named from the
    stack of its rerun under gdb (inside a sanitizer's runtime, or in the program)."""
    stacks = read_json(out / crash_stacks.STACKS_FILE, report, False)
    if not isinstance(stacks, dict):
        return
    for t in report.tests:
        found = stacks.get(t.ctest_name)
        if not isinstance(found, dict) or t.verdict != protocol.VERDICT_CRASH:
            continue
        stack = [line for line in found.get("stack", []) if isinstance(line, str)]
        where = text(found, "file")
        if not stack:
            t.detail += f"; no stack: a rerun under gdb did not crash again ({where})"
            continue
        named = crash_stacks.describe(stack)
        t.detail = f"{named} (symbolized stack from a rerun under gdb: {where})"
        t.headline = named
        t.excerpt = ("[saferecl] the test's output printed no stack; its rerun under gdb crashed here:\n"
                     + "\n".join(stack[:20]) + "\n\n" + t.excerpt)


def command_of(out: Path, run: object) -> str:
    """What made the directory: run.json's "command" (bench, mutants), else "mutants" for a
    directory holding only a sweep's mutants.json, else "run"."""
    if isinstance(run, dict) and isinstance(run.get("command"), str):
        return run["command"]
    sweep_only = (out / "mutants.json").is_file() and not (out / "junit.xml").exists() \
        and not (out / "index.json").exists()
    return "mutants" if sweep_only else "run"


def test_from_index(entry: IndexEntry) -> Test:
    return Test(impl=entry.implementation, name=entry.name, tier=entry.tier, kind=entry.kind,
                group=entry.group, source=entry.source, stable=entry.stable_name,
                paragraph=entry.paragraph, ids=entry.rows, timeout=entry.timeout)


def load(out: Path, title: str = "", catalog: Path = CATALOG,
         mutant_catalog: Path = MUTANT_CATALOG) -> Report:
    report = Report(title=title, in_dir=str(out), catalog_path=str(catalog))
    read_catalog(catalog, report)
    run = read_json(out / "run.json", report, False)
    report.run = run if isinstance(run, dict) else {}
    report.command = command_of(out, report.run)
    tests_expected = report.command == "run"  # bench and mutants directories have no tests
    if tests_expected and not (out / "run.json").exists():
        report.notes.append("run.json is missing")
    run_seed = json.dumps(report.run["seed"]) if "seed" in report.run else ""
    if tests_expected or (out / "implementations.json").is_file():
        read_implementations(out, report)
    read_build_failures(out, report)

    index: list[IndexEntry] = []
    if (out / "index.json").is_file() or tests_expected:
        try:
            index = read_index(out / "index.json")
        except InputProblem as e:
            report.notes.append(f"{e}: tests are known by their names only, and those that "
                                "never reached CTest are not shown")
    by_id = {e.id: e for e in index}

    # CTest's verdicts.
    in_junit: set[str] = set()
    could_not_list: set[str] = set()  # executables whose test cases CTest could not list
    junit_path = out / "junit.xml"
    if junit_path.is_file():
        junit = read_junit(junit_path)
        if junit.problem:
            report.notes.append(junit.problem)
        for record in junit.cases:
            in_junit.add(record.name)
            entry = by_id.get(record.name)
            if entry:
                t = test_from_index(entry)
            else:
                impl, _, name = record.name.partition("/")
                t = Test(impl=impl if name else "", name=name or record.name,
                         tier="unlabelled", kind="unlabelled")
                listing = LISTING_FAILURE.match(record.name)
                if listing:
                    could_not_list.add(f"{listing[1]}.{listing[2]}")
            t.ctest_name = record.name
            record.kind, record.timeout = t.kind, t.timeout
            c = evidence.reclassify(classify(record), record.output, report.run.get("sanitizer"),
                                    report.run.get("cxx_runtime"))
            t.verdict, t.detail, t.exit_status = c.verdict, c.detail, c.exit_status
            t.duration = record.time
            t.seed, t.config = seed_and_config(record.output)
            t.widened = tsan_evidence.fence_widenings(record.output)
            t.seed = t.seed or run_seed
            if t.verdict != protocol.VERDICT_PASS:
                t.headline = headline_of(record.output)
                t.excerpt = excerpt_of(record.output)
            report.tests.append(t)
    elif tests_expected:
        report.notes.append("junit.xml is missing: CTest did not run")
        report.ctest_ran = False

    # Tests that never reached CTest.
    broken = unbuilt_executables(report, index)
    chosen = selection.parse((report.run.get("selection") or {}).get("ctest_args"))
    left_out = f"not selected by the run's CTest arguments ({chosen.describe()})"
    for entry in index:
        if entry.id in in_junit:
            continue
        source_log = "".join(f.log + "\n" for f in report.build_failures
                             if f.impl == entry.implementation and f.source == entry.source)
        t = test_from_index(entry)
        t.origin, t.seed, log = "source", run_seed, source_log
        if entry.status == "not-applicable" and not chosen.empty and not selection.selects(chosen, entry):
            t.verdict, t.detail = protocol.VERDICT_NOT_RUN, left_out
        elif entry.status == "not-applicable":
            t.verdict, t.detail = protocol.VERDICT_NOT_APPLICABLE, entry.reason or "not applicable"
        elif entry.status == "not-built" or source_log:
            # Marked by the build (excluded after a failed compile), or failed in a build
            # that was not reconfigured without it.
            t.verdict, t.detail = protocol.VERDICT_NOT_BUILT, entry.reason or "does not compile"
        elif not junit_path.is_file():
            continue  # CTest did not run: nothing to say about a test that compiled
        elif entry.status == "built" and (broken is None or entry.executable in broken
                                          or entry.executable in could_not_list):
            t.verdict = protocol.VERDICT_NOT_BUILT
            t.detail = f"its executable {entry.executable} was not built or could not list its tests"
            log = "".join(f.log + "\n" for f in report.build_failures
                          if not f.impl or f.impl == entry.implementation)
        else:  # built, but CTest's arguments left it out
            report.tests_not_run += 1
            t.verdict = protocol.VERDICT_NOT_RUN
            t.detail = left_out if not chosen.empty else "built, and absent from junit.xml"
        if log:
            t.excerpt = excerpt_of(log, 4000)
            t.headline = headline_of(log)
        report.tests.append(t)

    # A source that failed to compile and of which the index names no test: one entry
    # named after the file, so that the failure is charged to its implementation.
    named = {(e.implementation, e.source) for e in index}
    for f in report.build_failures:
        if not f.impl or not f.source or (f.impl, f.source) in named:
            continue
        named.add((f.impl, f.source))
        report.tests.append(Test(
            impl=f.impl, name=f"({f.source})", tier="unlabelled", kind="unlabelled",
            source=f.source, origin="source", seed=run_seed, verdict=protocol.VERDICT_NOT_BUILT,
            detail=f"does not compile; the index names no test of {f.source}",
            excerpt=excerpt_of(f.log + "\n", 4000), headline=headline_of(f.log + "\n")))

    read_crash_stacks(out, report)
    read_expectations(out, report)
    soak = read_json(out / "soak.json", report, False)
    report.soak = soak if isinstance(soak, dict) else None
    report.mutants = read_json(out / "mutants.json", report, False)
    report.bench = read_json(out / "bench.json", report, False)
    if report.mutants is not None and mutant_catalog.is_file():
        report.mutant_catalog = read_json(mutant_catalog, report, False)
    return report
