"""The ends of a hazard pointer's protection epoch, enumerated from the wording
(catalog/epoch_ends.json), and the tests of this run that cover each: a core (for the
batches: cxx29) test that the object stays protected until the end, a qoi test that it
becomes reclaimable afterwards. Tests are found by name in what the run recorded (never in
the sources)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from reports.model import Report

CATALOG = Path(__file__).resolve().parent / "catalog" / "epoch_ends.json"
# The normative tiers: the batches' own tests are cxx29.
NORMATIVE = ("core", "cxx29")


@dataclass
class EpochEnd:
    end: str
    wording: str
    core: list[int] = field(default_factory=list)  # indices into Report.tests
    qoi: list[int] = field(default_factory=list)

    @property
    def covered(self) -> bool:
        return bool(self.core) and bool(self.qoi)


def epoch_ends(report: Report, catalog: Path = CATALOG) -> list[EpochEnd]:
    """Each end of the catalog with the run's tests that match its core and qoi patterns."""
    ends = []
    for entry in json.loads(catalog.read_text(encoding="utf-8"))["ends"]:
        core, qoi = re.compile(entry["core"]), re.compile(entry["qoi"])
        ends.append(EpochEnd(
            entry["end"], entry["wording"],
            [n for n, t in enumerate(report.tests) if t.tier in NORMATIVE and core.search(t.name)],
            [n for n, t in enumerate(report.tests) if t.tier == "qoi" and qoi.search(t.name)]))
    return ends
