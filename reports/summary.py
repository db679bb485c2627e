"""summary.md: short enough for a CI job summary; report.html has the rest."""

from __future__ import annotations

from reports import expectations, protocol, selection, soak
from reports.bench import bench_table
from reports.bench_targets import judge_ceilings, judge_targets
from reports.curves import bench_curves
from reports.epoch_ends import epoch_ends
from reports.facts import (findings, impl_verdict, run_line, run_verdict, runtime_caveat, runtime_line,
                           verdict_counts)
from reports.model import Report, Status, Test
from reports.mutants import WEAK_BELOW, mutant_coverage, mutants_of
from reports.stats import format_ns
from reports.text import fixed, md_escape, split_lines, trim

MAX_ITEMS = 40  # per section; the rest is counted, and in report.html
# How a failing test's outcome reads next to its verdict: "**FAIL** (new)".
OUTCOME_WORDS = {expectations.EXPECTED_FAIL: "expected", expectations.NEW_FAILURE: "new",
                 expectations.UNEXPECTED_PASS: "unexpected pass"}


def soak_section(report: Report) -> str:
    """--repeat: how many rounds, and every test that failed in one, with its replay command."""
    if report.soak is None:
        return ""
    seeds = report.soak.get("seeds") or []
    bad = soak.failing(report.soak)
    md = (f"\n**Soak: {report.soak.get('rounds', len(seeds))} rounds** (seeds {', '.join(map(str, seeds))}); "
          f"{len(bad)} test(s) failed in some round.\n")
    for name, stats in bad[:MAX_ITEMS]:
        md += (f"- {code(name)}: {stats['failures']} of {stats['runs']} rounds, first with seed "
               f"{stats['first_failing_seed']}<br>replay: {code(soak.replay_command(name, stats['first_failing_seed'], report.run))}\n")
    return md


def expectations_section(report: Report) -> str:
    """The decision a CI job gates on: was anything unexpected, and what."""
    e = report.expectations
    if e is None:
        return ""
    new, stale = e.count(expectations.NEW_FAILURE), e.count(expectations.UNEXPECTED_PASS)
    known = e.count(expectations.EXPECTED_FAIL)
    md = (f"\n**Expectations: {'nothing unexpected' if e.nothing_unexpected else 'UNEXPECTED RESULTS'}**"
          f" — {known} expected failure(s), {new} new failure(s), {stale} unexpected pass(es)"
          f" ({md_escape(report.expectation_source or 'expectations.json')}).\n")
    for problem in e.problems:
        md += f"- **{md_escape(problem)}**\n"
    by_id = {t.ctest_id: t for t in report.tests}
    unexpected = [by_id[i] for i in e.unexpected]
    for t in unexpected[:MAX_ITEMS]:
        md += test_line(t, True)[2:]
        if t.expected is not None:
            md += f"  - expected {'/'.join(t.expected.verdicts)}: {md_escape(t.expected.reason or t.expected.link)}\n"
    if len(unexpected) > MAX_ITEMS:
        md += f"- ... and {len(unexpected) - MAX_ITEMS} more in results.json\n"
    if known:
        md += f"\n<details><summary>{known} expected failure(s)</summary>\n\n"
        for t in report.tests:
            if t.outcome == expectations.EXPECTED_FAIL:
                why = t.expected.reason or t.expected.link
                md += f"- {md_escape(t.impl)}: **{t.verdict}** {code(t.name)} — {md_escape(why)}\n"
        md += "\n</details>\n"
    return md


def shard_sentence(shard: str) -> str:
    """What a shard's report cannot say: the other shards' tests did not run here."""
    k, _, n = shard.partition("/")
    return (f"This is shard {k} of {n}: the tests of the other shards were not run here and are not "
            "listed (NOT RUN in this directory); `./conformance merge` joins the shards into the whole run.")


def code(text: str) -> str:
    return "`" + text.replace("`", "'").replace("\n", " ") + "`"


def test_line(t: Test, with_impl: bool) -> str:
    line = "  - " + (f"{t.impl}: " if with_impl else "") + f"**{t.verdict}**"
    if t.outcome in OUTCOME_WORDS:
        line += f" ({OUTCOME_WORDS[t.outcome]})"
    line += f" {code(t.name)}"
    if t.tier != "core":
        line += f" ({t.tier})"
    if t.detail:
        line += " — " + md_escape(t.detail)
    if t.headline:
        line += "<br>" + code(t.headline)
    if t.repro:
        line += "<br>repro: " + code(t.repro)
    return line + "\n"


def findings_section(report: Report, status: str, heading: str) -> str:
    found = findings(report, status)
    if not found:
        return ""
    md = f"\n## {heading} ({len(found)})\n\n"
    for n, f in enumerate(found):
        if n == MAX_ITEMS:
            md += f"- ... and {len(found) - MAX_ITEMS} more in report.html\n"
            break
        md += (f"- **{f.row.id}** {md_escape(f.row.ref)} — {md_escape(f.row.summary)} — "
               f"*{f.impl.name}*\n")
        md += "".join(test_line(report.tests[i], False) for i in f.cell.tests
                      if report.tests[i].failing or report.tests[i].verdict == protocol.VERDICT_INCONCLUSIVE)
    return md


def widened_section(report: Report) -> str:
    """The passes whose process the TSan fence model widened: evidence weaker than a plain
    pass, said, not hidden (suite/support/tsan/fences.cpp lists what it widens and why)."""
    passes = report.widened_passes
    if not passes:
        return ""
    md = (f"\n## Passes on a widened TSan fence model ({len(passes)})\n\n"
          "The fence model gave these processes an edge wider than C++ gives, so a race could have "
          "gone unreported in them:\n\n")
    for t in passes[:MAX_ITEMS]:
        md += f"- {md_escape(t.impl)}: {md_escape(t.name)}: {md_escape('; '.join(t.widened))}\n"
    if len(passes) > MAX_ITEMS:
        md += f"- ... and {len(passes) - MAX_ITEMS} more in results.json (`fence_model_widened`)\n"
    return md


def notes_section(report: Report) -> str:
    if not report.notes:
        return ""
    return "\n## Notes on the inputs\n\n" + "".join(f"- {md_escape(n)}\n" for n in report.notes)


def bench_markdown(report: Report) -> str:
    """./conformance bench: the benchmark table instead of verdicts (there are no tests)."""
    md = f"# {report.title or 'saferecl benchmarks'}\n\n{md_escape(run_line(report))}\n\n"
    table = bench_table(report.bench)
    md += ("Median per operation, and its ratio to the reference measured in the same run (lower "
           "is faster); *wall*: wall-clock time, otherwise CPU time per thread.")
    if table.setup:
        md += f" {md_escape(table.setup)}."
    md += "\n\n| benchmark | threads |" + "".join(f" {md_escape(i)} |" for i in table.impls)
    md += "\n|---|---|" + "---|" * len(table.impls) + "\n"
    for r, (name, threads) in enumerate(table.rows):
        cells = [md_escape(name) + (" *wall*" if table.clocks[r] == "real" else ""),
                 str(threads) if threads else ""]
        for impl in table.impls:
            c = table.cells.get((r, impl))
            if c is None:
                cells.append("")
            elif c.status == "ok" and c.median_ns is not None:
                ratio = f" ({fixed(c.ratio, 2)}×)" if c.ratio is not None else ""
                cells.append(md_escape(format_ns(c.median_ns)) + ratio)
            else:
                cells.append(md_escape(c.status))
        md += "|" + "".join(f" {c} |" for c in cells) + "\n"
    md += reference_targets(table)
    md += reference_ceilings(table)
    md += promised_shapes(table)
    md += notes_section(report)
    return md + ("\nFull table with the reasons of every n/a and the charts of every curve: "
                 "`report.html`; the samples: `bench.json`.\n")


def reference_targets(table) -> str:
    """The reference's targets, each a ratio of two medians of this run."""
    judged = [j for j in judge_targets(table) if j.reference_ns is not None]
    if not judged:
        return ""
    md = "\n| the reference's target (one thread unless it names more) | reference | against | ratio | bound | outcome |\n|---|---|---|---|---|---|\n"
    for j in judged:
        against = f"{format_ns(j.against_ns)} ({md_escape(j.against)})" if j.against else "not in this run"
        ratio = f"{fixed(j.ratio, 2)}×" if j.ratio is not None else ""
        md += (f"| {md_escape(j.target.what)} | {format_ns(j.reference_ns)} | {against} | {ratio} | "
               f"≤ {j.target.bound}× | {j.outcome} |\n")
    return md


def reference_ceilings(table) -> str:
    """The reference's absolute bounds on a median of this run (a timeout is a miss)."""
    judged = [j for j in judge_ceilings(table) if j.outcome != "not measured"]
    if not judged:
        return ""
    md = "\n| the reference's ceiling | reference | bound | outcome |\n|---|---|---|---|\n"
    for j in judged:
        shown = format_ns(j.reference_ns) if j.reference_ns is not None else j.status
        md += f"| {md_escape(j.ceiling.what)} | {shown} | ≤ {format_ns(j.ceiling.bound_ns)} | {j.outcome} |\n"
    return md


def promised_shapes(table) -> str:
    """The curves whose shape the standard promises (H34: constant time), judged."""
    md = ""
    for curve in bench_curves(table):
        if curve.promise:
            md += f"\n**{md_escape(curve.family)}** against {curve.label} ({md_escape(curve.promise)}):\n"
            for f in curve.flatness:
                md += f"- {'flat' if f.flat else '**QoI: grows**'}: {md_escape(f.describe())}\n"
    return md


def mutants_markdown(report: Report) -> str:
    """The sweep's outcome and the weakly guarded rows."""
    found = mutants_of(report.mutants)
    killed = sum(1 for m in found if m.killed_by)
    bad = ", ".join(f"{m.id} ({m.verdict})" for m in found if not m.ok)
    md = (f"\nMutants: {len(found)} run, {killed} killed; "
          + (f"NOT as expected: {md_escape(bad)}" if bad else "all as the catalog expects") + ".\n")
    coverage = mutant_coverage(report)
    weak = [c for c in coverage if c.weak]
    if weak:
        # The rows one bug guards come first: one weakened test there loses the only kill.
        md += (f"Rows whose tests killed fewer than {WEAK_BELOW} distinct catalogued bugs: "
               f"{len(weak)} of {len(coverage)}.\n")
        single = [c for c in weak if c.killed]
        if single:
            md += "- one bug only:" + "".join(f" {c.row} ({c.killed[0]})" for c in single) + "\n"
        none = [c.row for c in weak if not c.killed]
        if none:
            md += ("- none:" + "".join(f" {row}" for row in none[:MAX_ITEMS])
                   + (f" and {len(none) - MAX_ITEMS} more" if len(none) > MAX_ITEMS else "") + "\n")
    return md


def summary_markdown(report: Report) -> str:
    if report.bench_only:
        return bench_markdown(report)
    if report.mutants_only:
        line = run_line(report)
        return (f"# {report.title or 'saferecl mutants'}\n" + (f"\n{md_escape(line)}\n" if line else "")
                + mutants_markdown(report) + notes_section(report)
                + "\nFull report: `report.html` (kill matrix, mutant coverage per row); the sweep: `mutants.json`.\n")
    verdict = run_verdict(report)
    md = f"# {report.title or 'saferecl conformance'}: {verdict}\n\n{md_escape(run_line(report))}\n\n"
    if runtime := runtime_line(report):
        md += f"{md_escape(runtime)}\n\n"
    if caveat := runtime_caveat(report):
        md += f"> **Warning:** {md_escape(caveat)}\n\n"
    md += "| implementation | verdict | core failures | strict warnings | QoI findings | tests |\n"
    md += "|---|---|---|---|---|---|\n"
    for impl in report.impls:
        if not impl.available:
            md += f"| {md_escape(impl.name)} | unavailable: {md_escape(impl.reason)} | | | | |\n"
            continue
        said = impl_verdict(impl) if impl.conforming else f"**{impl_verdict(impl)}**"
        if not impl.conforming and impl.why_not:
            said += f" ({md_escape('; '.join(impl.why_not))})"
        name = md_escape(impl.name) + (f" {md_escape(impl.version)}" if impl.version else "")
        md += (f"| {name} | {said} | {impl.core_failures} | {impl.strict_warnings} | "
               f"{impl.qoi_findings} | {verdict_counts(impl)} |\n")

    md += expectations_section(report)
    md += soak_section(report)

    covered = {i for t in report.tests for i in t.requirements if t.verdict != protocol.VERDICT_NOT_RUN
               if report.row(i) and report.row(i).testable}
    testable = [row for row in report.rows if row.testable]
    md += f"\nRequirement coverage: {len(covered)} of {len(testable)} testable rows of the catalog have tests"
    if len(covered) < len(testable):
        md += "; untested:" + "".join(f" {row.id}" for row in testable if row.id not in covered)
    md += ".\n"
    ends = epoch_ends(report)
    if any(e.core or e.qoi for e in ends):
        md += (f"Ends of a protection epoch ([saferecl.hp.holder.*]): {sum(e.covered for e in ends)} of "
               f"{len(ends)} have a core and a qoi test in this run")
        lacking = [e.end for e in ends if not e.covered]
        md += ("; lacking one: " + "; ".join(md_escape(e) for e in lacking) if lacking else "") + ".\n"
    if report.run.get("shard"):
        md += "\n" + shard_sentence(str(report.run["shard"])) + "\n"
    not_run = sum(t.verdict == protocol.VERDICT_NOT_RUN for t in report.tests)
    if not_run:
        md += (f"\n{not_run} test(s) NOT RUN: the run's selection left them out "
               f"(`{selection.parse((report.run.get('selection') or {}).get('ctest_args')).describe()}`); "
               "they say nothing about the implementation.\n")

    md += findings_section(report, Status.NON_CONFORMING, "Non-conforming requirements")
    md += findings_section(report, Status.NOT_JUDGED, "Not judged: the sanitizer could not see the synchronization")

    loose = [report.tests[n] for n in report.unmapped
             if report.tests[n].failing and report.tests[n].verdict != protocol.VERDICT_NOT_BUILT]
    if loose:
        md += f"\n## Failing tests with no requirement row ({len(loose)})\n\n"
        md += "".join(test_line(t, True)[2:] for t in loose[:MAX_ITEMS])
        if len(loose) > MAX_ITEMS:
            md += f"- ... and {len(loose) - MAX_ITEMS} more in report.html\n"

    # Sources that did not compile, and harness failures.
    not_built = []
    for f in report.build_failures:
        first = next((trim(line) for line in split_lines(f.log) if "error" in line), "")
        not_built.append(f"- {f.impl or 'all implementations (harness)'}: {code(f.source or f.executable)}"
                         + (f"<br>{code(first[:300])}" if first else ""))
    seen = {(f.impl, f.source) for f in report.build_failures}
    for t in report.tests:
        if t.verdict == protocol.VERDICT_NOT_BUILT and (t.impl, t.source) not in seen:
            seen.add((t.impl, t.source))
            not_built.append(f"- {t.impl}: {code(t.source)} — {md_escape(t.detail)}")
    if not_built:
        md += f"\n## Not built ({len(not_built)})\n\n" + "".join(f"{line}\n" for line in not_built[:MAX_ITEMS])
        if len(not_built) > MAX_ITEMS:
            md += f"- ... and {len(not_built) - MAX_ITEMS} more\n"

    md += widened_section(report)
    md += findings_section(report, Status.WARNING, "Strict-tier warnings")
    md += findings_section(report, Status.QOI, "Quality-of-implementation findings")

    if report.mutants is not None:
        md += mutants_markdown(report)
    md += notes_section(report)
    return md + "\nFull report: `report.html`; machine-readable: `results.json`; per test: `junit.xml`.\n"
