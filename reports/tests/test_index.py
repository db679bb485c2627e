"""The index reader: a well-formed index, and clear errors for everything else."""

from __future__ import annotations

import json

import pytest

from reports.index import InputProblem, parse_index, read_index


def entry(**kw) -> dict:
    base = {"id": "reference/saferecl.hp.holder.mem/5 H30: x", "implementation": "reference",
            "name": "saferecl.hp.holder.mem/5 H30: x", "requirement": "saferecl.hp.holder.mem/5",
            "stable_name": "saferecl.hp.holder.mem", "paragraph": "5", "rows": ["H30"],
            "tier": "core", "kind": "semantic", "group": "hp",
            "source": "suite/saferecl.hp/x.pass.cpp", "line": 23, "capabilities": ["hazard-pointer"],
            "executable": "reference.hp", "status": "built", "reason": "", "timeout": 300,
            "suite": "core.semantic"}
    base.update(kw)
    return base


def test_reads_every_field():
    (e,) = parse_index({"schema": "saferecl-index/1", "tests": [entry()]})
    assert (e.id, e.implementation, e.stable_name, e.paragraph, e.rows) == \
        ("reference/saferecl.hp.holder.mem/5 H30: x", "reference", "saferecl.hp.holder.mem", "5", ("H30",))
    assert (e.tier, e.kind, e.group, e.executable, e.status, e.line) == \
        ("core", "semantic", "hp", "reference.hp", "built", 23)
    assert e.timeout == 300.0 and e.capabilities == ("hazard-pointer",)
    assert e.extra == {"suite": "core.semantic"}, "fields the reports do not use are kept aside"


@pytest.mark.parametrize("document,message", [
    ([], "not a test index"),
    ({"schema": "saferecl-index/2", "tests": []}, "expected 'saferecl-index/1'"),
    ({"schema": "saferecl-index/1"}, '"tests" is not a list'),
    ({"schema": "saferecl-index/1", "tests": ["x"]}, "test #0 is not an object"),
    ({"schema": "saferecl-index/1", "tests": [entry(tier=None)]}, "lacks text field(s) tier"),
    ({"schema": "saferecl-index/1", "tests": [entry(status="built-ish")]}, "unknown status 'built-ish'"),
    ({"schema": "saferecl-index/1", "tests": [entry(rows="H30")]}, "rows is not a list of strings"),
    ({"schema": "saferecl-index/1", "tests": [entry(timeout="300")]}, "timeout is not a number"),
])
def test_rejects_what_is_not_an_index(document, message):
    with pytest.raises(InputProblem, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_index(document)


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(InputProblem, match="index.json is missing"):
        read_index(tmp_path / "index.json")
    (tmp_path / "index.json").write_text("{broken")
    with pytest.raises(InputProblem, match="index.json is unreadable"):
        read_index(tmp_path / "index.json")
    (tmp_path / "index.json").write_text(json.dumps({"schema": "saferecl-index/1", "tests": [entry()]}))
    assert len(read_index(tmp_path / "index.json")) == 1


def test_a_broken_index_is_a_note_and_the_report_is_still_written(tmp_path):
    from reports import write_reports
    (tmp_path / "index.json").write_text('{"schema": "other"}')
    results = write_reports(tmp_path)
    assert any("not a test index" in n for n in results["notes"])
    assert (tmp_path / "report.html").is_file() and results["conforming"] is False
