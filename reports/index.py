"""The reader of the test index (index.json, schema "saferecl-index/1").

The build writes the index once, at configure time (suite/cmake/index_tests.py): every test
of every configured implementation with its source, stable name, paragraph, row ids, tier,
kind, group, capabilities, executable and status. A report directory holds a copy. The
reports take every fact about a test from here and never read the suite's sources; the
schema is in /work/coord/TOOLING.md and reports/README.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = "saferecl-index/1"
STATUSES = ("built", "not-applicable", "not-built", "compile-test")
REQUIRED_TEXT = ("id", "implementation", "name", "tier", "kind", "group", "source", "status")


class InputProblem(Exception):
    """A run output that is missing, unreadable or not in its schema; the message says which
    file and what is wrong."""


@dataclass(frozen=True)
class IndexEntry:
    id: str  # the CTest test name: "<implementation>/<name>"
    implementation: str
    name: str
    requirement: str = ""
    stable_name: str = ""
    paragraph: str = ""
    rows: tuple[str, ...] = ()
    tier: str = "core"
    kind: str = ""
    group: str = ""
    source: str = ""
    line: int = 0
    capabilities: tuple[str, ...] = ()
    executable: str = ""
    status: str = "built"
    reason: str = ""
    timeout: float | None = None  # CTest's TIMEOUT (an addition of the driver's index writer)
    extra: dict = field(default_factory=dict, compare=False, hash=False)  # fields we do not use


def parse_index(document: object, where: str = "index.json") -> list[IndexEntry]:
    """The entries of an index document; InputProblem naming the first bad entry otherwise."""
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        found = document.get("schema") if isinstance(document, dict) else type(document).__name__
        raise InputProblem(f"{where}: not a test index (schema {found!r}, expected {SCHEMA!r})")
    tests = document.get("tests")
    if not isinstance(tests, list):
        raise InputProblem(f"{where}: \"tests\" is not a list")
    entries = []
    for number, t in enumerate(tests):
        what = f"{where}: test #{number}"
        if not isinstance(t, dict):
            raise InputProblem(f"{what} is not an object")
        missing = [k for k in REQUIRED_TEXT if not isinstance(t.get(k), str)]
        if missing:
            raise InputProblem(f"{what} ({t.get('id', '?')!r}) lacks text field(s) {', '.join(missing)}")
        if t["status"] not in STATUSES:
            raise InputProblem(f"{what} ({t['id']!r}) has an unknown status {t['status']!r}")
        for key in ("rows", "capabilities"):
            if not isinstance(t.get(key, []), list) or not all(isinstance(v, str) for v in t.get(key, [])):
                raise InputProblem(f"{what} ({t['id']!r}): {key} is not a list of strings")
        timeout = t.get("timeout")
        if timeout is not None and not isinstance(timeout, (int, float)):
            raise InputProblem(f"{what} ({t['id']!r}): timeout is not a number")
        known = {f for f in IndexEntry.__dataclass_fields__ if f != "extra"}
        entries.append(IndexEntry(
            id=t["id"], implementation=t["implementation"], name=t["name"],
            requirement=str(t.get("requirement") or ""), stable_name=str(t.get("stable_name") or ""),
            paragraph=str(t.get("paragraph") or ""), rows=tuple(t.get("rows", [])),
            tier=t["tier"], kind=t["kind"], group=t["group"], source=t["source"],
            line=int(t.get("line") or 0), capabilities=tuple(t.get("capabilities", [])),
            executable=str(t.get("executable") or ""), status=t["status"],
            reason=str(t.get("reason") or ""),
            timeout=float(timeout) if timeout is not None else None,
            extra={k: v for k, v in t.items() if k not in known}))
    return entries


def read_index(path: Path) -> list[IndexEntry]:
    """index.json of a report directory (or of a build tree)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputProblem(f"{path.name} is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputProblem(f"{path.name} is unreadable: {e}") from None
    return parse_index(document, path.name)
