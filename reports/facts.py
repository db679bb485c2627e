"""What the three writers say alike: the run line, the verdict counts, the findings."""

from __future__ import annotations

import json
from dataclasses import dataclass

from reports import protocol
from reports.model import Cell, Implementation, Report, Row

GENERATOR = "saferecl reports 2.0 (Python)"
RESULTS_SCHEMA = "saferecl-results/1"


def dump(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def run_line(report: Report) -> str:
    """"sanitizer tsan; profile quick (scale 1.0); seed 42; clang 14; 2 cores; load average 0.4
    -> 9.1 in the tests (8 spinning processes beside them); <date>"."""
    run, parts = report.run, []
    if isinstance(run.get("sanitizer"), str):
        parts.append(f"sanitizer {run['sanitizer']}")
    if isinstance(run.get("profile"), str):
        scale = f" (scale {dump(run['stress_scale'])})" if "stress_scale" in run else ""
        parts.append(f"profile {run['profile']}{scale}")
    if "seed" in run:
        parts.append(f"seed {dump(run['seed'])}")
    if isinstance(run.get("compiler_version"), str):
        parts.append(run["compiler_version"])
    if isinstance(run.get("cxx_standard"), str):
        parts.append(run["cxx_standard"])
    if isinstance(run.get("cxx_runtime"), dict) and isinstance(run["cxx_runtime"].get("library"), str):
        parts.append(run["cxx_runtime"]["library"])
    if "host_cores" in run:
        parts.append(f"{dump(run['host_cores'])} cores")
    load = run.get("load_average")
    if isinstance(load, dict) and isinstance(load.get("test_start"), list) and isinstance(load.get("test_end"), list):
        busy = load.get("busy_processes")
        parts.append(f"load average {dump(load['test_start'][0])} -> {dump(load['test_end'][0])} in the tests"
                     + (f" ({dump(busy)} spinning processes beside them)" if busy else ""))
    if isinstance(run.get("date"), str):
        parts.append(run["date"])
    return "; ".join(parts)


def runtime_line(report: Report) -> str | None:
    """"C++ runtime: libc++ 22.1.8, instrumented for TSan" (run.json's cxx_runtime, from
    driver/runtime_probe.py), for a TSan run; None for another tier."""
    runtime = report.run.get("cxx_runtime")
    if not isinstance(runtime, dict) or "instrumented" not in runtime:
        return None
    line = f"C++ runtime: {runtime.get('library', '?')}, {runtime.get('how', 'seen by TSan: unknown')}"
    if runtime.get("probe_with"):
        line += (f"; its probe raced in {runtime.get('racy_runs', '?')} runs with {runtime['probe_with']}, "
                 f"{runtime.get('racy_runs_without_annotations', '?')} without them")
    if runtime.get("better_remedy"):
        line += f". Note: {runtime['better_remedy']}"
    return line


def runtime_caveat(report: Report) -> str | None:
    """The TSan run's warning when TSan cannot see the C++ runtime's synchronization and no
    annotation makes up for it (run.json's cxx_runtime), else None."""
    runtime = report.run.get("cxx_runtime")
    if not isinstance(runtime, dict) or runtime.get("instrumented") is not False or runtime.get("annotations"):
        return None
    return (f"TSan cannot see the synchronization inside the C++ runtime ({runtime.get('library', '?')}, "
            f"not instrumented: its probe ({runtime.get('probe', 'std::call_once')}) raced in {runtime.get('racy_runs', '?')} runs). "
            f"A race report that runs through it is INCONCLUSIVE, not a failure. "
            f"Remedy: {runtime.get('remedy', '?')}")


def impl_verdict(impl: Implementation) -> str:
    """"conforming", "NOT conforming" or "not judged in this tier"."""
    if impl.conforming:
        return "conforming"
    return "not judged in this tier" if impl.not_judged else "NOT conforming"


def run_verdict(report: Report) -> str:
    if report.conforming:
        return "conforming"
    bad = [i for i in report.impls if i.selected and i.available and not i.conforming and not i.not_judged]
    return "not judged in this tier" if report.not_judged and not bad else "NOT conforming"


def verdict_counts(impl: Implementation) -> str:
    """"12 PASS, 1 FAIL, ..." (verdicts with no test left out)."""
    parts = [f"{impl.counts.get(v, 0)} {v}" for v in protocol.VERDICTS if impl.counts.get(v, 0)]
    return ", ".join(parts) or "no tests"


@dataclass
class Finding:  # one requirement cell with the given status
    row: Row
    impl: Implementation
    cell: Cell


def findings(report: Report, status: str) -> list[Finding]:
    return [Finding(row, impl, report.cells[row.id][impl.name])
            for row in report.rows if row.id in report.cells
            for impl in report.impls
            if impl.name in report.cells[row.id] and report.cells[row.id][impl.name].status == status]
