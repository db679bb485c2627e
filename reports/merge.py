"""Merging the report directories of the shards of one run into the report of the whole run
(`./conformance merge DIR...`, after a CI matrix ran `./conformance run --shard K/N`).

The merged directory is what one unsharded run of the same selection and seed would have
written: index.json and junit.xml are the union of the shards' (every source, hence every
test, belongs to exactly one shard: reports/shards.py), build-failures.json the union,
implementations.json and expectations.json the shards' common ones, run.json the shards'
common run with "shard" replaced by "merged_from"; then the reports are written from it as
for any run, so verdicts, requirement cells and the exit decision come out the same.

Shards of different runs must not be mixed into a report that no run produced. merge refuses,
saying which directory differs in what, when the shards differ in their selection,
seed, sanitizer tier, profile, compiler or source revision, or in the implementations found;
when a directory is no shard (no "shard" in run.json), when a shard is missing or given twice,
or when two shards ran the same test.
"""

from __future__ import annotations

import copy
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from reports.shards import ShardError, parse_shard

# run.json keys every shard of one run has in common (besides "shard"); a difference refuses.
SAME_RUN_KEYS = ("selection", "seed", "sanitizer", "profile", "stress_scale", "source_revision",
                 "compiler", "compiler_version", "cxx_flags", "std_options", "explicit_selection",
                 "repeat", "cxx_standard", "stdlib", "stdlib_include_dirs", "stdlib_library_dirs",
                 "runtime_annotations")
MERGED_FILES = ("run.json", "index.json", "junit.xml", "implementations.json",
                "build-failures.json", "build.log", "expectations.json")


class MergeRefused(Exception):
    """Shards that do not make one run; the message says which directory and why."""


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MergeRefused(f"{path} is missing: not a complete report directory") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise MergeRefused(f"{path} is unreadable: {e}") from None


class Shard:
    def __init__(self, directory: Path):
        self.dir = Path(directory)
        if not self.dir.is_dir():
            raise MergeRefused(f"{self.dir} is not a directory")
        self.run = _json(self.dir / "run.json")
        if not isinstance(self.run, dict) or not self.run.get("shard"):
            raise MergeRefused(f"{self.dir}: run.json names no shard (not made by ./conformance run --shard K/N)")
        try:
            self.k, self.n = parse_shard(str(self.run["shard"]))
        except ShardError as e:
            raise MergeRefused(f"{self.dir}: run.json: {e}") from None
        self.implementations = _json(self.dir / "implementations.json")
        expectations = self.dir / "expectations.json"
        self.expectations = _json(expectations) if expectations.is_file() else None
        index = _json(self.dir / "index.json")
        self.index = index.get("tests") if isinstance(index, dict) else None
        if not isinstance(self.index, list):
            raise MergeRefused(f"{self.dir}/index.json has no \"tests\" list")
        failures = self.dir / "build-failures.json"
        self.build_failures = _json(failures) if failures.is_file() else []
        junit = self.dir / "junit.xml"
        try:
            self.junit = ET.parse(junit).getroot() if junit.is_file() else None
        except ET.ParseError as e:
            raise MergeRefused(f"{junit} is unreadable: {e}") from None

    @property
    def name(self) -> str:
        return f"{self.dir} (shard {self.k}/{self.n})"


def _available(implementations) -> list:
    return sorted((i.get("name"), bool(i.get("available"))) for i in implementations
                  if isinstance(i, dict)) if isinstance(implementations, list) else []


def check(shards: list[Shard]) -> None:
    """Raises MergeRefused unless the shards are the complete set of one run."""
    if not shards:
        raise MergeRefused("no shard directories given")
    first = shards[0]
    for s in shards[1:]:
        for key in SAME_RUN_KEYS:
            if s.run.get(key) != first.run.get(key):
                raise MergeRefused(
                    f"{s.name} and {first.name} are not shards of one run: {key} "
                    f"{json.dumps(s.run.get(key))} vs {json.dumps(first.run.get(key))}")
        if s.n != first.n:
            raise MergeRefused(f"{s.name} and {first.name} split the run differently ({s.n} vs {first.n} shards)")
        if _available(s.implementations) != _available(first.implementations):
            raise MergeRefused(f"{s.name} and {first.name} found different implementations: "
                               f"{_available(s.implementations)} vs {_available(first.implementations)}")
        if s.expectations != first.expectations:
            raise MergeRefused(f"{s.name} and {first.name} applied different expectations (expectations.json)")
    seen: dict[int, Shard] = {}
    for s in shards:
        if s.k in seen:
            raise MergeRefused(f"shard {s.k}/{s.n} is given twice: {seen[s.k].dir} and {s.dir}")
        seen[s.k] = s
    missing = [k for k in range(1, first.n + 1) if k not in seen]
    if missing:
        raise MergeRefused(f"shard(s) {', '.join(f'{k}/{first.n}' for k in missing)} missing: "
                           "the merge would not be the whole run")
    owner: dict[str, Shard] = {}
    for s in shards:
        for entry in s.index:
            test = entry.get("id") if isinstance(entry, dict) else None
            if test in owner:
                raise MergeRefused(f"{test} is in {owner[test].name} and in {s.name}: the shards overlap")
            owner[test] = s


def merged_junit(shards: list[Shard]) -> ET.Element:
    """One <testsuite> with every shard's <testcase>s, sorted by name, and recounted totals.
    A case that is in several shards is not one of the index's tests (check() refused those)
    but a per-executable one, e.g. discover_tests' "<impl>/<group>: listing the test cases"
    failure: the whole run would have it once."""
    by_name: dict[str, ET.Element] = {}
    for s in shards:
        for case in s.junit.iter("testcase") if s.junit is not None else []:
            by_name.setdefault(case.get("name", ""), copy.deepcopy(case))
    cases = [by_name[name] for name in sorted(by_name)]
    first = next((s.junit for s in shards if s.junit is not None), None)
    suite = ET.Element("testsuite", {k: v for k, v in (first.attrib if first is not None else {}).items()
                                     if k not in ("tests", "failures", "skipped", "disabled", "time")})
    suite.set("name", suite.get("name", "saferecl"))
    suite.set("tests", str(len(cases)))
    suite.set("failures", str(sum(1 for c in cases if c.find("failure") is not None or c.get("status") == "fail")))
    suite.set("skipped", str(sum(1 for c in cases if c.find("skipped") is not None)))
    suite.set("time", f"{sum(float(c.get('time') or 0) for c in cases):.3f}")
    suite.extend(cases)
    return suite


def merge(directories: list[Path], out: Path) -> list[Shard]:
    """Writes the merged inputs of a report into `out` (an existing, empty directory) and
    returns the shards, in shard order; the caller writes the reports (reports.write_reports).
    Raises MergeRefused, writing nothing, when they are not one run's complete set."""
    shards = sorted((Shard(d) for d in directories), key=lambda s: s.k)
    check(shards)
    first = shards[0]
    run = {k: v for k, v in first.run.items() if k != "shard"}
    run["merged_from"] = [{"shard": f"{s.k}/{s.n}", "directory": str(s.dir), "date": s.run.get("date")}
                          for s in shards]
    out = Path(out)
    (out / "run.json").write_text(json.dumps(run, indent=1))
    (out / "index.json").write_text(json.dumps(
        {"schema": "saferecl-index/1", "tests": [e for s in shards for e in s.index]}, indent=1))
    shutil.copy(first.dir / "implementations.json", out / "implementations.json")
    failures: list = []
    for s in shards:
        failures += [f for f in s.build_failures if f not in failures]  # a harness failure is in every shard
    (out / "build-failures.json").write_text(json.dumps(failures, indent=1))
    ET.ElementTree(merged_junit(shards)).write(out / "junit.xml", encoding="UTF-8", xml_declaration=True)
    with open(out / "build.log", "w", encoding="utf-8") as log:
        for s in shards:
            log.write(f"==== shard {s.k}/{s.n}: {s.dir}\n")
            if (s.dir / "build.log").is_file():
                log.write((s.dir / "build.log").read_text(encoding="utf-8", errors="replace"))
    if first.expectations is not None:
        shutil.copy(first.dir / "expectations.json", out / "expectations.json")
    soaks = [_json(s.dir / "soak.json") for s in shards if (s.dir / "soak.json").is_file()]
    if soaks:  # --repeat: the rounds' seeds are the run's (checked), the tests the union
        (out / "soak.json").write_text(json.dumps(
            {**soaks[0], "tests": {k: v for doc in soaks for k, v in sorted(doc.get("tests", {}).items())}}, indent=1))
    return shards
