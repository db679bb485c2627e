"""Shards (reports/shards.py) and their merge (reports/merge.py).

The partition: deterministic, complete, stable when sources are added, balanced by
durations. The merge: the `mixed` fixture is cut into shards the way `--shard K/N` cuts a
run (by source: index entries, junit cases and compile failures go with their source), and
merging them must give the same tests and verdicts as rendering it whole; shards that are
not one run's complete set are refused with the reason."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from reports import compare as cmp
from reports import shards, write_reports
from reports.merge import MergeRefused, merge
from reports.tests.conftest import FIXTURES

SOURCES = [f"saferecl.hp/area{a}/test{t}.pass.cpp" for a in range(8) for t in range(12)]
RUN = {"selection": {"implementations": ["reference", "buggy", "std"], "sources": "", "ctest_args": []},
       "source_revision": "0123abcd"}


@pytest.mark.parametrize("text", ["", "3", "0/3", "4/3", "1/0", "a/b", "-1/2"])
def test_bad_shard_values(text):
    with pytest.raises(shards.ShardError, match="--shard"):
        shards.parse_shard(text)


def test_shard_values():
    assert shards.parse_shard("2/3") == (2, 3) and shards.parse_shard(" 1 / 1 ") == (1, 1)


@pytest.mark.parametrize("durations", [None, {s: float(len(s) % 7 + 1) for s in SOURCES}])
def test_partition_is_complete_disjoint_and_deterministic(durations):
    parts = [shards.select(SOURCES, k, 3, durations) for k in (1, 2, 3)]
    assert sorted(sum(parts, [])) == sorted(SOURCES)
    assert all(parts), "96 sources leave no shard empty"
    assert parts == [shards.select(list(reversed(SOURCES)), k, 3, durations) for k in (1, 2, 3)]


def test_adding_a_source_moves_no_other():
    before = shards.partition(SOURCES, 4)
    after = shards.partition(SOURCES + ["saferecl.rcu/new/new.pass.cpp"], 4)
    assert all(after[s] == before[s] for s in SOURCES)


def test_durations_balance_the_shards():
    durations = {s: (60.0 if n % 10 == 0 else 1.0) for n, s in enumerate(SOURCES)}  # a few stress tests
    total = sum(durations.values())
    for n in (2, 3, 4):
        load = {}
        for s, k in shards.partition(SOURCES, n, durations).items():
            load[k] = load.get(k, 0) + durations[s]
        assert max(load.values()) <= total / n + 60, (n, load)  # within the longest source
    hashed = {}
    for s, k in shards.partition(SOURCES, 3).items():
        hashed[k] = hashed.get(k, 0) + durations[s]
    balanced = {}
    for s, k in shards.partition(SOURCES, 3, durations).items():
        balanced[k] = balanced.get(k, 0) + durations[s]
    assert max(balanced.values()) <= max(hashed.values())


def test_a_source_without_duration_is_placed_by_its_hash():
    durations = {s: 1.0 for s in SOURCES}
    new = "saferecl.rcu/new/new.pass.cpp"
    assert shards.partition(SOURCES + [new], 3, durations)[new] == shards.hashed_shard(new, 3)


def test_durations_from_a_results_file(rendered, tmp_path):
    seconds = shards.durations_from_results(rendered("mixed"))
    assert seconds["saferecl.hp/saferecl.hp.holder/saferecl.hp.holder.mem/try_protect.pass.cpp"] > 0
    bad = tmp_path / "results.json"
    bad.write_text("{}")
    with pytest.raises(shards.ShardError, match="not a readable results.json"):
        shards.durations_from_results(bad)


def test_sources_regex_matches_exactly_its_sources():
    import re
    regex = shards.sources_regex(SOURCES[:3])
    assert [s for s in SOURCES if re.search(regex, s)] == SOURCES[:3]
    assert not re.search(shards.sources_regex([]), SOURCES[0])
    assert not re.search(shards.sources_regex(["a+b.cpp"]), "aab.cpp")


def cut_into_shards(whole: Path, work: Path, n: int, run: dict = RUN) -> list[Path]:
    """What n runs with --shard k/n leave: each with the sources the partition gives it."""
    index = json.loads((whole / "index.json").read_text())["tests"]
    owner = shards.partition([e["source"].removeprefix("suite/") for e in index], n)
    shard_of_test = {e["id"]: owner[e["source"].removeprefix("suite/")] for e in index}
    failures = json.loads((whole / "build-failures.json").read_text())
    junit = ET.parse(whole / "junit.xml").getroot()
    dirs = []
    for k in range(1, n + 1):
        d = work / f"shard-{k}"
        shutil.copytree(whole, d, ignore=shutil.ignore_patterns("README.md", "junit.xml", "index.json",
                                                                "build-failures.json", "mutants.json",
                                                                "bench.json"))
        r = json.loads((d / "run.json").read_text())
        r.update(run, shard=f"{k}/{n}")
        (d / "run.json").write_text(json.dumps(r))
        (d / "index.json").write_text(json.dumps(
            {"schema": "saferecl-index/1", "tests": [e for e in index if shard_of_test[e["id"]] == k]}))
        (d / "build-failures.json").write_text(json.dumps(
            [f for f in failures if not f["source"] or owner[f["source"].removeprefix("suite/")] == k]))
        mine = ET.Element("testsuite", junit.attrib)
        mine.extend(c for c in junit.iter("testcase") if shard_of_test[c.get("name")] == k)
        ET.ElementTree(mine).write(d / "junit.xml", encoding="UTF-8", xml_declaration=True)
        dirs.append(d)
    return dirs


@pytest.fixture
def whole_and_shards(tmp_path):
    whole = tmp_path / "whole"
    shutil.copytree(FIXTURES / "mixed", whole, ignore=shutil.ignore_patterns("README.md", "mutants.json", "bench.json"))
    r = json.loads((whole / "run.json").read_text())
    r.update(RUN, shard=None)
    (whole / "run.json").write_text(json.dumps(r))
    parts = cut_into_shards(whole, tmp_path, 3)
    write_reports(whole)
    return whole, parts


def test_merged_shards_equal_the_whole_run(whole_and_shards, tmp_path):
    whole, parts = whole_and_shards
    assert all(json.loads((p / "index.json").read_text())["tests"] for p in parts), "each shard has tests"
    out = tmp_path / "merged"
    out.mkdir()
    merge(list(reversed(parts)), out)
    merged = write_reports(out)
    c = cmp.compare(cmp.read_side(whole), cmp.read_side(out))
    assert c.tests == [] and c.rows == [] and all(i.kind == "same" for i in c.implementations)
    assert c.unchanged == len(merged["tests"]) == len(json.loads((whole / "results.json").read_text())["tests"])
    assert merged["conforming"] is False and merged["run"]["seed"] == 42 and "shard" not in merged["run"]
    assert [m["shard"] for m in merged["run"]["merged_from"]] == ["1/3", "2/3", "3/3"]
    assert merged["build_failures"] == json.loads((whole / "results.json").read_text())["build_failures"]


def refusal(parts: list[Path], tmp_path: Path) -> str:
    out = tmp_path / "refused"
    out.mkdir(exist_ok=True)
    with pytest.raises(MergeRefused) as e:
        merge(parts, out)
    assert not any(out.iterdir()), "a refused merge writes nothing"
    return str(e.value)


@pytest.mark.parametrize("key, value", [("seed", 7), ("sanitizer", "asan"), ("source_revision", "fedcba98"),
                                        ("selection", {"implementations": ["reference"], "sources": "", "ctest_args": []})])
def test_shards_of_different_runs_are_refused(whole_and_shards, tmp_path, key, value):
    _, parts = whole_and_shards
    r = json.loads((parts[1] / "run.json").read_text())
    r[key] = value
    (parts[1] / "run.json").write_text(json.dumps(r))
    message = refusal(parts, tmp_path)
    assert "not shards of one run" in message and key in message and str(parts[1]) in message


def test_incomplete_or_repeated_or_unsharded_sets_are_refused(whole_and_shards, tmp_path):
    whole, parts = whole_and_shards
    assert "shard(s) 2/3 missing" in refusal([parts[0], parts[2]], tmp_path)
    assert "given twice" in refusal([parts[0], parts[0], parts[1], parts[2]], tmp_path)
    assert "names no shard" in refusal([whole, *parts], tmp_path)
    other = cut_into_shards(whole, tmp_path / "two", 2) if (tmp_path / "two").mkdir() is None else []
    assert "split the run differently" in refusal([parts[0], other[1], parts[2]], tmp_path)
    overlapping = json.loads((parts[0] / "index.json").read_text())
    overlapping["tests"] += json.loads((parts[1] / "index.json").read_text())["tests"][:1]
    (parts[0] / "index.json").write_text(json.dumps(overlapping))
    assert "the shards overlap" in refusal(parts, tmp_path)
