"""The reports' data model: what the run outputs say, after classification and mapping."""

from __future__ import annotations

from dataclasses import dataclass, field

from reports import protocol

# Verdicts in the order of severity the report uses, with their CSS classes.
VERDICT_CSS = {
    protocol.VERDICT_PASS: "v-pass", protocol.VERDICT_FAIL: "v-fail",
    protocol.VERDICT_TIMEOUT: "v-timeout", protocol.VERDICT_CRASH: "v-crash",
    protocol.VERDICT_NOT_APPLICABLE: "v-na", protocol.VERDICT_NOT_BUILT: "v-notbuilt",
    protocol.VERDICT_INCONCLUSIVE: "v-inconclusive", protocol.VERDICT_NOT_RUN: "v-notrun",
}


def is_normative_tier(tier: str) -> bool:
    """core and cxx29 (and a test with no known tier) are normative; strict is a warning and
    qoi a finding."""
    return tier not in ("strict", "qoi")


# Per implementation and requirement row: (name in results.json, cell label, CSS class).
class Status:
    NON_CONFORMING = "non-conforming"
    NOT_JUDGED = "not-judged"  # its only evidence was a sanitizer report it could not judge
    WARNING = "warning"
    QOI = "qoi-finding"
    CONFORMING = "conforming"
    NOT_APPLICABLE = "not-applicable"
    NOT_RUN = "not-run"  # every test of the cell was left out by the run's selection
    UNTESTED = "untested"
    NOT_TESTABLE = "not-testable"
    UNAVAILABLE = "unavailable"
    ALL = (NON_CONFORMING, NOT_JUDGED, WARNING, QOI, CONFORMING, NOT_APPLICABLE, NOT_RUN, UNTESTED, NOT_TESTABLE,
           UNAVAILABLE)
    LABEL = {NON_CONFORMING: "non-conforming", NOT_JUDGED: "not judged", WARNING: "warning", QOI: "QoI finding",
             CONFORMING: "conforming", NOT_APPLICABLE: "n/a", NOT_RUN: "not run", UNTESTED: "untested",
             NOT_TESTABLE: "no test needed", UNAVAILABLE: "unavailable"}
    CSS = {NON_CONFORMING: "s-bad", NOT_JUDGED: "s-notjudged", WARNING: "s-warn", QOI: "s-qoi", CONFORMING: "s-ok",
           NOT_APPLICABLE: "s-na", NOT_RUN: "s-untested", UNTESTED: "s-untested", NOT_TESTABLE: "s-nt",
           UNAVAILABLE: "s-unavail"}


@dataclass
class Test:
    impl: str
    name: str  # without the "<impl>/" prefix
    ctest_name: str = ""  # as CTest knows it ("" when the test never reached CTest)
    verdict: str = protocol.VERDICT_PASS
    detail: str = ""  # how the verdict was reached
    tier: str = "core"
    kind: str = ""
    group: str = ""
    source: str = ""
    origin: str = "ctest"  # ctest | source (never reached CTest: named from the index)
    repro: str = ""  # the command that writes a standalone reproducer (a failure that ran)
    stable: str = ""
    paragraph: str = ""
    ids: tuple[str, ...] = ()  # row-like ids in the name (from the index, or the name)
    requirements: list[str] = field(default_factory=list)  # catalog row ids
    unknown_ids: list[str] = field(default_factory=list)  # ids the catalog lacks
    mapping: str = "none"  # row-id | paragraph | none
    duration: float | None = None
    timeout: float | None = None
    exit_status: int | None = None
    seed: str = ""
    config: str = ""  # the test's "[saferecl] <test>: seed=... scale=..." line
    headline: str = ""  # the one most telling line of the output
    excerpt: str = ""  # output excerpt (failures, not applicable); empty for passes
    # What the TSan fence model said it widened in the test's process (a race may be hidden).
    widened: list[str] = field(default_factory=list)
    # With expectations (reports/expectations.py): EXPECTED FAIL, UNEXPECTED PASS, NEW
    # FAILURE or the verdict, and the known-failure entry that applied; "" / None without.
    outcome: str = ""
    expected: object = None  # reports.expectations.Expectation

    @property
    def ctest_id(self) -> str:
        """The id expectations and comparisons key on: CTest's name, "<impl>/<name>"."""
        return self.ctest_name or f"{self.impl}/{self.name}"

    @property
    def failing(self) -> bool:
        return protocol.is_failing(self.verdict)


@dataclass
class Row:  # one requirement row of the catalog
    id: str
    clause: str
    ref: str = ""
    kind: str = ""
    tier: str = ""
    summary: str = ""
    paras: list[int] = field(default_factory=list)
    testable: bool = True


@dataclass
class Clause:
    key: str
    title: str


@dataclass
class Implementation:
    name: str
    available: bool = False
    selected: bool = True
    reason: str = ""
    version: str = ""
    limits: str = ""
    capabilities: list[str] = field(default_factory=list)
    # computed by analyse
    conforming: bool = False
    why_not: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    core_failures: int = 0
    # Normative tests whose only failure evidence TSan could not judge: with no core
    # failure, the implementation is not judged in this tier (why: not_judged_because).
    inconclusive: int = 0
    not_judged_because: str = ""
    not_judged: bool = False  # no evidence against it, and some that could not be judged
    strict_warnings: int = 0
    qoi_findings: int = 0
    not_built_sources: int = 0
    row_counts: dict[str, int] = field(default_factory=dict)
    outcome_counts: dict[str, int] = field(default_factory=dict)  # with expectations only


@dataclass
class BuildFailure:
    impl: str  # "" = not one implementation's source: the harness or a link step
    source: str  # "suite/..." or ""
    executable: str
    log: str


@dataclass
class Cell:
    status: str = Status.UNTESTED
    tests: list[int] = field(default_factory=list)  # indices into Report.tests


@dataclass
class Report:
    title: str = ""
    run: dict = field(default_factory=dict)  # run.json as the driver wrote it
    impls: list[Implementation] = field(default_factory=list)
    tests: list[Test] = field(default_factory=list)
    build_failures: list[BuildFailure] = field(default_factory=list)
    clauses: list[Clause] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    cells: dict[str, dict[str, Cell]] = field(default_factory=dict)  # row id -> impl -> cell
    unmapped: list[int] = field(default_factory=list)  # tests mapped to no row
    notes: list[str] = field(default_factory=list)  # problems with the inputs
    tests_not_run: int = 0  # in the index and built, absent from junit.xml (filtered out)
    conforming: bool = False  # the run's verdict
    not_judged: list[str] = field(default_factory=list)  # implementations not judged in this tier
    mutants: object = None  # mutants.json as read, or None
    mutant_catalog: dict | None = None  # adapters/mutants/catalog.json
    bench: object = None  # bench.json as read, or None
    catalog_path: str = ""
    in_dir: str = ""
    command: str = "run"  # what made the directory: run | bench | mutants (see load.command_of)
    ctest_ran: bool = True  # junit.xml was there
    # expectations.json of the directory (None: none given), and what it says of this run.
    expectation_entries: list | None = None
    expectation_source: str = ""
    expectations: object = None  # reports.expectations.Evaluation
    soak: dict | None = None  # soak.json of a run with --repeat (reports/soak.py)

    def impl(self, name: str) -> Implementation | None:
        return next((i for i in self.impls if i.name == name), None)

    def row(self, row_id: str) -> Row | None:
        return next((r for r in self.rows if r.id == row_id), None)

    @property
    def bench_only(self) -> bool:
        """A directory of ./conformance bench: no tests, no verdict."""
        return self.command == "bench"

    @property
    def widened_passes(self) -> list[Test]:
        """The passes whose process the TSan fence model widened (summary.md, report.html)."""
        return [t for t in self.tests if t.widened and t.verdict == protocol.VERDICT_PASS]

    @property
    def mutants_only(self) -> bool:
        """A directory of ./conformance mutants: the sweep, no tests of its own, no verdict."""
        return self.command == "mutants"
