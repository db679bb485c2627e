"""driver/known_failures.py: which files a run applies (each adapter's, or --expect FILE),
a malformed file as a usage error before anything is built, --update-expectations writing
the files back, and the exit decision."""

from __future__ import annotations

import json

import pytest

from driver import known_failures
from driver.errors import UsageError
from reports import expectations as ex


def results(*tests) -> dict:
    return {"tests": [{"implementation": t[0].split("/")[0], "name": t[0].split("/", 1)[1],
                       "ctest_name": t[0], "verdict": t[1], "stable_name": "saferecl.rcu.general",
                       "paragraph": "5", "headline": "CHECK failed"} for t in tests]}


@pytest.fixture
def adapters(tmp_path, monkeypatch):
    for impl in ("good", "known"):
        (tmp_path / impl).mkdir()
    (tmp_path / "known" / "expectations.json").write_text(json.dumps({
        "schema": ex.SCHEMA, "implementation": "known", "expected": [
            {"test": "known/t1", "verdict": "FAIL", "paragraph": "p/1", "reason": "upstream bug 7"}]}))
    monkeypatch.setattr(known_failures, "ADAPTERS", tmp_path)
    return tmp_path


def test_each_adapter_file_or_the_given_one(adapters, tmp_path):
    found = known_failures.read(["good", "known"], None)
    assert [(p.parent.name, [e.test for e in entries]) for p, entries in found] == [("known", ["known/t1"])]
    given = tmp_path / "mine.json"
    given.write_text(json.dumps({"schema": ex.SCHEMA, "expected": []}))
    assert known_failures.read(["known"], given) == [(given, [])]


def test_a_malformed_file_is_a_usage_error(adapters):
    (adapters / "good" / "expectations.json").write_text('{"schema": "saferecl-expectations/1"}')
    with pytest.raises(UsageError, match="good/expectations.json: \"expected\" must be a list"):
        known_failures.read(["good", "known"], None)


def test_update_writes_each_adapter_file(adapters):
    run = results(("known/t1", "FAIL"), ("known/t2", "TIMEOUT"), ("good/t1", "PASS"))
    written = known_failures.update(run, ["good", "known"], None, "tsan")
    assert written == [adapters / "known" / "expectations.json"]  # good has no failure: no file
    entries = ex.read_file(adapters / "known" / "expectations.json", "known")
    assert [(e.test, e.reason[:14], e.sanitizers) for e in entries] == [
        ("known/t1", "upstream bug 7", ()), ("known/t2", ex.UNEXPLAINED[:14], ("tsan",))]
    assert known_failures.update(run, ["good", "known"], None, "tsan") == [], "nothing new: nothing written"


def test_update_into_the_given_file(adapters, tmp_path):
    given = tmp_path / "ci-known.json"
    known_failures.update(results(("good/t9", "CRASH"), ("known/t1", "FAIL")), ["good", "known"], given, "asan")
    assert [e.test for e in ex.read_file(given)] == ["good/t9", "known/t1"]


def test_exit_decision():
    assert known_failures.exit_decision({"conforming": False, "expectations": {"nothing_unexpected": True}})
    assert not known_failures.exit_decision({"conforming": True, "expectations": {"nothing_unexpected": False}})
    assert known_failures.exit_decision({"conforming": True})  # a directory without expectations
