"""mutants.json (from ./conformance mutants), read leniently, and the mutant coverage of the
requirement rows.

The coverage counts, per testable row of the catalog, the distinct catalogued bugs that
tests citing the row killed: a row whose tests kill fewer than two different bugs is weakly
guarded (one changed test could let a real bug through unseen). Only entries whose catalog
status is a bug ("mutant", "hardware-dependent") count; a conforming variant that a test
wrongly killed is a finding about that test, not coverage.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from reports.analyse import rows_of_name
from reports.model import Report

WEAK_BELOW = 2  # fewer distinct killed bugs than this: the row is highlighted
BUG_STATUSES = ("mutant", "hardware-dependent")
COVERED_ROWS = ("R", "H", "B")  # <rcu> and <hazard_pointer> rows; G rows are library-wide
ROW_ID = re.compile(r"\b([GRHB][0-9]{1,2})\b")


@dataclass
class Mutant:
    id: str = ""
    description: str = ""
    tier: str = ""
    verdict: str = ""
    expected: list[str] = field(default_factory=list)  # expected killers (patterns or scenario ids)
    killed_by: list[tuple[str, float | None]] = field(default_factory=list)  # test, seconds
    first_kill: float | None = None
    ok: bool = False  # the outcome the catalog expects (killed, or spared when not a bug)


def first_text(m: dict, *keys: str) -> str:
    return next((m[k] for k in keys if isinstance(m.get(k), str)), "")


def first_number(m: dict, *keys: str) -> float | None:
    return next((float(m[k]) for k in keys
                 if isinstance(m.get(k), (int, float)) and not isinstance(m.get(k), bool)), None)


def mutants_of(document: object) -> list[Mutant]:
    """The entries of mutants.json: {"mutants": [...]} or a bare list; see reports/README.md
    for the alternative keys accepted."""
    entries = document.get("mutants") if isinstance(document, dict) and "mutants" in document else document
    out = []
    for m in entries if isinstance(entries, list) else []:
        if not isinstance(m, dict):
            continue
        mu = Mutant(id=first_text(m, "id"),
                    description=first_text(m, "description", "bug", "title", "summary", "what"),
                    tier=first_text(m, "tier", "sanitizer"), verdict=first_text(m, "verdict"))
        for key in ("expected_killers", "kill"):
            if isinstance(m.get(key), list):
                mu.expected += [e if isinstance(e, str) else json.dumps(e) for e in m[key]]
        if isinstance(m.get("killed_by"), list):
            for k in m["killed_by"]:
                if isinstance(k, str):
                    mu.killed_by.append((k, None))
                elif isinstance(k, dict):
                    mu.killed_by.append((first_text(k, "test", "name"), first_number(k, "time")))
        elif isinstance(m.get("killing_tests"), list):
            mu.killed_by = [(k, None) for k in m["killing_tests"] if isinstance(k, str)]
        mu.first_kill = first_number(m, "time_to_first_kill", "time_to_first_kill_s")
        if isinstance(m.get("ok"), bool):
            mu.ok = m["ok"]
        else:
            mu.ok = mu.verdict in ("killed", "not-a-bug") or mu.verdict.startswith("spared")
        out.append(mu)
    return out


@dataclass
class RowCoverage:
    row: str
    killed: list[str]  # distinct bug ids killed by the row's tests, in catalog order
    aimed: list[str]  # bug ids whose catalog entry names this row as the requirement it breaks

    @property
    def weak(self) -> bool:
        return len(self.killed) < WEAK_BELOW


def mutant_coverage(report: Report) -> list[RowCoverage]:
    """Per testable <rcu> and <hazard_pointer> row of the catalog (in catalog order), the distinct bugs its tests
    killed; empty without mutants.json."""
    if report.mutants is None:
        return []
    catalog = report.mutant_catalog if isinstance(report.mutant_catalog, dict) else {}
    entries = [m for m in catalog.get("mutants", []) if isinstance(m, dict)]
    status = {m.get("id"): m.get("status") for m in entries}
    order = {m.get("id"): n for n, m in enumerate(entries)}
    aimed: dict[str, list[str]] = {}
    for m in entries:
        if m.get("status") in BUG_STATUSES:
            for row_id in dict.fromkeys(ROW_ID.findall(str(m.get("requirement", "")))):
                aimed.setdefault(row_id, []).append(m["id"])
    killed: dict[str, set[str]] = {}
    for mu in mutants_of(report.mutants):
        # Without a catalog entry the run's own verdict decides: a bug is what must be killed.
        is_bug = status[mu.id] in BUG_STATUSES if mu.id in status else mu.verdict.lower() == "killed"
        if not is_bug:
            continue
        for test, _ in mu.killed_by:
            for row_id in rows_of_name(report, test):
                killed.setdefault(row_id, set()).add(mu.id)
    return [RowCoverage(row.id, sorted(killed.get(row.id, ()), key=lambda i: (order.get(i, len(order)), i)),
                        aimed.get(row.id, []))
            for row in report.rows if row.testable and row.id.startswith(COVERED_ROWS)]
