"""The end of a run's console: what fits a screen. The implementation table, each unexpected
result (with its verdict, the line that tells most and the file with its output), and the
problems of the expectations; the driver adds the expectations line and the paths. Everything
else (expected failures, per-requirement findings, coverage, the slowest tests) stays in
summary.md, report.html and results.json.

Read from results.json (schema saferecl-results/1), so the driver needs nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from reports import protocol

MAX_UNEXPECTED = 15  # a run with more lists the first ones and counts the rest


def output_file(outputs: Path | None, ctest_name: str) -> Path | None:
    """The file outputs/NNNN-<name>.log the run wrote for a failed test (driver/ctest.py)."""
    if outputs is None or not outputs.is_dir() or not ctest_name:
        return None
    stem = re.sub(r"[^A-Za-z0-9._=-]+", "_", ctest_name)[:120].strip("_")
    found = sorted(outputs.glob(f"[0-9][0-9][0-9][0-9]-{stem}.log"))
    return found[0] if found else None


def counts(impl: dict) -> str:
    parts = [f"{impl.get('counts', {}).get(v, 0)} {v}" for v in protocol.VERDICTS
             if impl.get("counts", {}).get(v, 0)]
    return ", ".join(parts) or "no tests"


def implementation_table(doc: dict) -> list[str]:
    rows = []
    for impl in doc.get("implementations", []):
        if not impl.get("selected", True):
            continue
        name = impl.get("name", "?")
        if not impl.get("available"):
            rows.append((name, f"unavailable: {impl.get('reason', '')}", ""))
            continue
        said = impl.get("verdict", "?")
        if not impl.get("conforming") and impl.get("not_conforming_because"):
            said += " (" + "; ".join(impl["not_conforming_because"]) + ")"
        rows.append((name, said, counts(impl)))
    width = max([len("implementation")] + [len(r[0]) for r in rows])
    lines = [f"{'implementation':<{width}}  verdict"]
    lines += [f"{name:<{width}}  {said}" + (f"  [{tests}]" if tests else "") for name, said, tests in rows]
    return lines


def unexpected_results(doc: dict, outputs: Path | None) -> list[str]:
    e = doc.get("expectations")
    if not e:  # no expectations at all: every failing test is unexpected
        wanted = [t for t in doc.get("tests", []) if protocol.is_failing(t.get("verdict", ""))]
    else:
        ids = set(e.get("unexpected", []))
        wanted = [t for t in doc.get("tests", []) if f"{t.get('implementation')}/{t.get('name')}" in ids]
    lines = []
    for t in wanted[:MAX_UNEXPECTED]:
        outcome = t.get("outcome") or t.get("verdict")
        verdict = t.get("verdict", "?")
        lines.append(f"{outcome}: {t.get('implementation')}/{t.get('name')}: {verdict}"
                     + (f" ({t['detail']})" if t.get("detail") else ""))
        if t.get("headline"):
            lines.append(f"    {t['headline']}")
        where = output_file(outputs, t.get("ctest_name", ""))
        if where is not None:
            lines.append(f"    output: {where}")
        if t.get("repro"):
            lines.append(f"    repro: {t['repro']}")
    if len(wanted) > MAX_UNEXPECTED:
        lines.append(f"... and {len(wanted) - MAX_UNEXPECTED} more unexpected result(s) in summary.md")
    for problem in (e or {}).get("problems", []):
        lines.append(f"UNEXPECTED: {problem}")
    return lines


def console_end(doc: dict, outputs: Path | None = None) -> list[str]:
    """The lines the console ends with, before the expectations line and the paths."""
    title = "conforming" if doc.get("conforming") else "NOT conforming"
    if doc.get("not_judged"):
        title += f" (not judged in this tier: {', '.join(doc['not_judged'])})"
    if (doc.get("run") or {}).get("shard"):
        title += f" (shard {doc['run']['shard']}: the other shards' tests were not run here)"
    lines = [f"== result: {title}", *implementation_table(doc)]
    unexpected = unexpected_results(doc, outputs)
    if unexpected:
        lines += ["", *unexpected]
    return lines
