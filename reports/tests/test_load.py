"""Which tests a report directory yields: CTest's, and those of the index that never
reached CTest (not applicable, not built, or filtered out)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reports import write_reports

PASSED = '<testcase name="{}" time="0.1" status="run"><system-out>[saferecl] exit status 0\n</system-out></testcase>'


def index_entry(impl: str, name: str, source: str, executable: str, status: str = "built", reason: str = ""):
    return {"id": f"{impl}/{name}", "implementation": impl, "name": name, "tier": "core",
            "kind": "semantic", "group": executable.split(".")[-1], "source": source,
            "executable": executable, "status": status, "reason": reason, "timeout": 300}


HP = "suite/saferecl.hp/saferecl.hp.holder/saferecl.hp.holder.mem/try_protect.pass.cpp"
RCU = "suite/saferecl.rcu/saferecl.rcu.domain/saferecl.rcu.domain.func/rcu_barrier.pass.cpp"
H30 = "saferecl.hp.holder.mem/5 H30: try_protect with a changed source returns false"
R33 = "saferecl.rcu.domain.func/4 R33: after rcu_barrier every earlier retire has run once"


def run_dir(tmp_path: Path, entries, ran, failures=(), ctest_args=None) -> dict:
    """A report directory with these index entries, these CTest names passing, and these
    build failures; returns results.json."""
    (tmp_path / "index.json").write_text(json.dumps({"schema": "saferecl-index/1", "tests": entries}))
    (tmp_path / "junit.xml").write_text(
        '<testsuite name="x">' + "".join(PASSED.format(n) for n in ran) + "</testsuite>")
    (tmp_path / "implementations.json").write_text(json.dumps(
        [{"name": "reference", "available": True, "capabilities": []}]))
    (tmp_path / "run.json").write_text(json.dumps({"seed": 5, "implementations": ["reference"],
                                                   "selection": {"ctest_args": ctest_args or []}}))
    (tmp_path / "build-failures.json").write_text(json.dumps(list(failures)))
    return write_reports(tmp_path)


def verdicts(results: dict) -> dict:
    return {t["name"]: (t["verdict"], t["detail"]) for t in results["tests"]}


def test_a_test_filtered_out_is_not_run(tmp_path):
    results = run_dir(tmp_path, [index_entry("reference", H30, HP, "reference.hp"),
                                 index_entry("reference", R33, RCU, "reference.rcu")],
                      ran=[f"reference/{H30}"], ctest_args=["-R", r"saferecl\.hp"])
    assert verdicts(results) == {H30: ("PASS", ""), R33: (
        "NOT RUN", r"not selected by the run's CTest arguments (-R saferecl\.hp)")}
    assert results["tests_not_run"] == 1 and results["conforming"] is True
    reference = results["implementations"][0]
    assert reference["counts"]["NOT RUN"] == 1 and reference["counts"]["NOT APPLICABLE"] == 0
    assert "R33" in results["coverage"]["untested_rows"], "a row whose only test did not run is untested here"


def test_a_test_the_selection_left_out_is_not_run_even_where_its_adapter_lacks_a_capability(tmp_path):
    r"""-R saferecl\.hp against a tree without <rcu>: the rcu tests were never registered,
    and the selection did not take them either: NOT RUN, not NOT APPLICABLE. A test the
    selection would have taken is NOT APPLICABLE."""
    lacking = "the reference adapter lacks: rcu"
    results = run_dir(tmp_path, [index_entry("reference", H30, HP, "reference.hp"),
                                 index_entry("reference", R33, RCU, "reference.rcu", "not-applicable", lacking),
                                 index_entry("reference", H30 + " rcu", HP, "reference.hp", "not-applicable", lacking)],
                      ran=[f"reference/{H30}"], ctest_args=["-R", r"saferecl\.hp", "-j", "2"])
    found = verdicts(results)
    assert found[R33][0] == "NOT RUN" and "-R saferecl" in found[R33][1]
    assert found[H30 + " rcu"] == ("NOT APPLICABLE", lacking)


@pytest.mark.parametrize("args,selected", [
    (["-L", "tier=core"], True), (["-L", "tier=qoi"], False), (["-LE", "kind=semantic"], False),
    (["-E", "H30"], False), (["--tests-regex=saferecl\\.hp", "-L", "impl=reference"], True),
    (["-L", "impl=reference", "-L", "tier=qoi"], False)])
def test_the_selection_is_ctests(args, selected):
    from reports.index import IndexEntry
    from reports.selection import parse, selects
    entry = IndexEntry(id=f"reference/{H30}", implementation="reference", name=H30, tier="core",
                       kind="semantic", group="hp", source=HP)
    assert selects(parse(args), entry) is selected


def test_a_source_that_failed_to_compile_is_not_built_even_if_the_index_says_built(tmp_path):
    failure = {"implementation": "reference", "source": RCU, "executable": "reference.rcu",
               "log": "rcu_barrier.pass.cpp:3:1: error: boom"}
    results = run_dir(tmp_path, [index_entry("reference", H30, HP, "reference.hp"),
                                 index_entry("reference", R33, RCU, "reference.rcu")],
                      ran=[f"reference/{H30}"], failures=[failure])
    assert verdicts(results)[R33] == ("NOT BUILT", "does not compile")
    assert results["tests_not_run"] == 0 and results["conforming"] is False


def test_a_link_failure_costs_only_its_executable(tmp_path):
    failure = {"implementation": None, "source": None, "executable": "suite/reference.rcu",
               "log": "ld: undefined reference"}
    results = run_dir(tmp_path, [index_entry("reference", H30, HP, "reference.hp"),
                                 index_entry("reference", R33, RCU, "reference.rcu"),
                                 index_entry("reference", H30 + " again", HP, "reference.hp")],
                      ran=[f"reference/{H30}"], failures=[failure])
    found = verdicts(results)
    assert found[R33][0] == "NOT BUILT" and "reference.rcu was not built" in found[R33][1]
    assert found[H30 + " again"][0] == "NOT RUN" and results["tests_not_run"] == 1


def test_a_harness_failure_costs_every_executable(tmp_path):
    failure = {"implementation": None, "source": None,
               "executable": "suite/CMakeFiles/saferecl_test_support.dir/support/knobs.cpp.o", "log": "error"}
    results = run_dir(tmp_path, [index_entry("reference", H30, HP, "reference.hp"),
                                 index_entry("reference", R33, RCU, "reference.rcu")],
                      ran=[], failures=[failure])
    assert {v for v, _ in verdicts(results).values()} == {"NOT BUILT"}


def test_not_applicable_and_not_built_entries(tmp_path):
    results = run_dir(tmp_path, [
        index_entry("reference", H30, HP, "reference.hp", "not-applicable", "the reference adapter lacks: x"),
        index_entry("reference", R33, RCU, "reference.rcu", "not-built", "does not compile against reference")],
        ran=[])
    assert verdicts(results) == {H30: ("NOT APPLICABLE", "the reference adapter lacks: x"),
                                 R33: ("NOT BUILT", "does not compile against reference")}
    assert all(t["origin"] == "source" and t["seed"] == "5" for t in results["tests"])


def test_a_test_the_index_lacks_keeps_what_its_name_says(tmp_path):
    results = run_dir(tmp_path, [], ran=[f"reference/{H30}"])
    (t,) = results["tests"]
    assert (t["implementation"], t["tier"], t["requirements"], t["mapping"]) == \
        ("reference", "unlabelled", ["H30"], "row-id")


def test_the_index_decides_the_rows(tmp_path):
    entry = index_entry("reference", H30, HP, "reference.hp")
    entry.update(stable_name="saferecl.hp.holder.mem", paragraph="5", rows=["H31"])
    results = run_dir(tmp_path, [entry], ran=[f"reference/{H30}"])
    assert results["tests"][0]["requirements"] == ["H31"], "the index's rows, not a second parse"


def test_a_pass_on_a_widened_fence_model_says_so(tmp_path):
    """The fence model's "widened" line is kept for a passing test (results.json, summary.md,
    report.html): its pass rests on an edge wider than C++'s, which could hide a race."""
    widened = ("more threads fenced than the model has rows: rows are shared")
    (tmp_path / "index.json").write_text(json.dumps({"schema": "saferecl-index/1", "tests": [
        index_entry("reference", H30, HP, "reference.hp"), index_entry("reference", R33, RCU, "reference.rcu")]}))
    (tmp_path / "junit.xml").write_text(
        '<testsuite name="x">' + PASSED.format(f"reference/{R33}")
        + f'<testcase name="reference/{H30}" time="0.1" status="run"><system-out>'
        f"[saferecl] TSan fence model widened: {widened}\n[saferecl] exit status 0\n</system-out></testcase>"
        "</testsuite>")
    (tmp_path / "implementations.json").write_text(json.dumps(
        [{"name": "reference", "available": True, "capabilities": []}]))
    (tmp_path / "run.json").write_text(json.dumps({"seed": 5, "implementations": ["reference"],
                                                   "selection": {"ctest_args": []}}))
    (tmp_path / "build-failures.json").write_text("[]")
    results = write_reports(tmp_path)
    by_name = {t["name"]: t for t in results["tests"]}
    assert by_name[H30]["verdict"] == "PASS" and by_name[H30]["fence_model_widened"] == [widened]
    assert "fence_model_widened" not in by_name[R33]
    summary = (tmp_path / "summary.md").read_text()
    assert "## Passes on a widened TSan fence model (1)" in summary and widened in summary
    page = (tmp_path / "report.html").read_text()
    assert 'id="widened"' in page and widened in page
