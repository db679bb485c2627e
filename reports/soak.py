"""Soak runs: the same battery run N times with rotating seeds (`./conformance run --repeat N`,
typically with `--profile soak`), so that a rare failure gets a seed to replay instead of
disappearing into a later green run.

Every round leaves its own junit file (junit-<round>.xml, seed = the run's seed + round - 1).
`aggregate` turns them into the run's junit.xml, where each test is the record of its FIRST
FAILING round (so the report shows that failure's output and its verdict), or of its last
round when it never failed, and into soak.json:

    {"schema": "saferecl-soak/1", "rounds": 5, "seeds": [42, 43, 44, 45, 46],
     "tests": {"<ctest name>": {"runs": 5, "failures": 1, "first_failing_seed": 44}}}

The reports list every test that failed in some round with its count and the command that
replays the failing round (summary.md "Soak", results.json "soak").
"""

from __future__ import annotations

import copy
import json
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

SCHEMA = "saferecl-soak/1"


def _failed(case: ET.Element) -> bool:
    return case.find("failure") is not None or case.get("status") == "fail"


def aggregate(rounds: list[tuple[int, Path]]) -> tuple[ET.Element, dict]:
    """(junit.xml root, soak.json document) of the rounds, given as (seed, junit path)."""
    chosen: dict[str, ET.Element] = {}
    stats: dict[str, dict] = {}
    attributes: dict = {}
    for seed, path in rounds:
        if not path.is_file():
            continue  # CTest did not run in that round: it counts no runs
        root = ET.parse(path).getroot()
        attributes = attributes or dict(root.attrib)
        for case in root.iter("testcase"):
            name = case.get("name", "")
            s = stats.setdefault(name, {"runs": 0, "failures": 0, "first_failing_seed": None})
            s["runs"] += 1
            if _failed(case):
                s["failures"] += 1
                if s["first_failing_seed"] is None:
                    s["first_failing_seed"] = seed
                    chosen[name] = copy.deepcopy(case)
            if s["failures"] == 0:
                chosen[name] = copy.deepcopy(case)  # the latest clean record
    suite = ET.Element("testsuite", {k: v for k, v in attributes.items()
                                     if k not in ("tests", "failures", "skipped", "disabled", "time")})
    suite.set("name", suite.get("name", "saferecl"))
    cases = [chosen[n] for n in sorted(chosen)]
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if _failed(c))))
    suite.extend(cases)
    doc = {"schema": SCHEMA, "rounds": len(rounds), "seeds": [seed for seed, _ in rounds],
           "tests": {n: stats[n] for n in sorted(stats)}}
    return suite, doc


def write(rounds: list[tuple[int, Path]], junit: Path, soak: Path) -> dict:
    root, doc = aggregate(rounds)
    ET.ElementTree(root).write(junit, encoding="UTF-8", xml_declaration=True)
    soak.write_text(json.dumps(doc, indent=1))
    return doc


def replay_command(ctest_name: str, seed: int, run: dict) -> str:
    """The command that runs the failing round of one test again."""
    impl, _, name = ctest_name.partition("/")
    words = ["./conformance", "run", "--impl", impl, "--seed", str(seed)]
    if run.get("sanitizer"):
        words += ["--sanitizer", str(run["sanitizer"])]
    if run.get("profile"):
        words += ["--profile", str(run["profile"])]
    special = set(".^$*+?()[]{}|\\")  # CTest's -R is a CMake regular expression
    quoted = "".join("\\" + c if c in special else c for c in f"{impl}/{name}")
    words += ["--", "-R", f"^{quoted}$"]
    return " ".join(shlex.quote(w) for w in words)


def failing(doc: dict) -> list[tuple[str, dict]]:
    """The tests that failed in some round, most failures first."""
    tests = doc.get("tests", {}) if isinstance(doc, dict) else {}
    bad = [(n, s) for n, s in tests.items() if isinstance(s, dict) and s.get("failures")]
    return sorted(bad, key=lambda item: (-item[1]["failures"], item[0]))


def failing_with_replay(doc: dict, run: dict) -> list[dict]:
    """failing(), each test as {"test", "runs", "failures", "first_failing_seed", "replay"}."""
    return [{"test": name, **stats, "replay": replay_command(name, stats["first_failing_seed"], run)}
            for name, stats in failing(doc)]
