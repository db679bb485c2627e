"""Known failures (reports/expectations.py): the file's checks, the outcome of every test, the
CI decision, --update-expectations, and how the three reports show them (on the `mixed`
fixture, where `buggy` fails in every way and `std` is unavailable)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reports import expectations as ex
from reports import write_reports
from reports.tests.conftest import FIXTURES, results_of

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters"


def entry(test: str, verdict="FAIL", **more) -> dict:
    return {"test": test, "verdict": verdict, "paragraph": "saferecl.x/1", "reason": "known", **more}


def doc(*entries, **top) -> dict:
    return {"schema": ex.SCHEMA, "expected": list(entries), **top}


@pytest.mark.parametrize("bad, message", [
    ([], "must be a JSON object"),
    ({"expected": []}, '"schema" must be'),
    ({"schema": "saferecl-expectations/2", "expected": []}, "not supported"),
    ({"schema": ex.SCHEMA}, '"expected" must be a list'),
    ({"schema": ex.SCHEMA, "expected": [], "extra": 1}, "unknown key(s) extra"),
    (doc("liburcu/t"), "an entry must be an object"),
    (doc({"test": "no-implementation", "verdict": "FAIL", "paragraph": "p", "reason": "r"}), "CTest name"),
    (doc(entry("a/t", verdict="FAILED")), '"verdict" must be one of'),
    (doc(entry("a/t", verdict="PASS")), '"verdict" must be one of'),
    (doc(entry("a/t", verdict=[])), '"verdict" must be one of'),
    (doc({"test": "a/t", "verdict": "FAIL", "reason": "r"}), '"paragraph"'),
    (doc({"test": "a/t", "verdict": "FAIL", "paragraph": "p"}), 'a "reason" or an upstream "link"'),
    (doc(entry("a/t", reson="typo")), "unknown key(s) reson"),
    (doc(entry("a/t", sanitizers=["msan"])), '"sanitizers" must be'),
    (doc(entry("a/t", flaky="yes")), '"flaky" is true or false'),
    (doc(entry("a/t"), entry("a/t", sanitizers=["tsan"])), "listed twice for tsan"),
    (doc(entry("b/t"), implementation="a"), "the file is for a"),
])
def test_a_malformed_file_is_a_clear_error(bad, message):
    with pytest.raises(ex.ExpectationsError) as e:
        ex.parse(bad, "adapters/a/expectations.json")
    assert message in str(e.value) and "adapters/a/expectations.json" in str(e.value)


def test_file_errors_name_the_file_and_the_place(tmp_path):
    broken = tmp_path / "expectations.json"
    broken.write_text('{"schema": "saferecl-expectations/1",\n "expected": [}')
    with pytest.raises(ex.ExpectationsError, match=r"expectations.json: not JSON: .* line 2"):
        ex.read_file(broken)
    with pytest.raises(ex.ExpectationsError, match="no such file"):
        ex.read_file(tmp_path / "missing.json")
    with pytest.raises(ex.ExpectationsError, match=r"expected\[1\] \(a/u\)"):
        ex.parse(doc(entry("a/t"), entry("a/u", verdict="WRONG")), "f")


def test_one_test_may_have_entries_for_disjoint_tiers():
    entries = ex.parse(doc(entry("a/t", sanitizers=["tsan"]), entry("a/t", "TIMEOUT", sanitizers=["asan"])), "f")
    assert [e.sanitizers for e in entries] == [("tsan",), ("asan",)]
    assert ex.parse(ex.document(entries), "round trip") == sorted(entries, key=lambda e: (e.test, e.sanitizers))


def test_outcomes():
    entries = ex.parse(doc(entry("a/fails"), entry("a/fixed"), entry("a/other", ["TIMEOUT", "CRASH"]),
                           entry("a/tsan-only", sanitizers=["tsan"]), entry("a/gone"),
                           entry("a/lost-capability"), entry("a/racy", flaky=True),
                           entry("a/racy-failed", flaky=True)), "f")
    observed = [ex.Observed("a/fails", "FAIL"), ex.Observed("a/fixed", "PASS"),
                ex.Observed("a/other", "FAIL"), ex.Observed("a/tsan-only", "FAIL"),
                ex.Observed("a/new", "NOT BUILT"), ex.Observed("a/fine", "PASS"),
                ex.Observed("a/lost-capability", "NOT APPLICABLE"), ex.Observed("a/racy", "PASS"),
                ex.Observed("a/racy-failed", "FAIL")]
    under_tsan = ex.evaluate(entries, observed, "tsan")
    assert under_tsan.outcomes == {
        "a/fails": ex.EXPECTED_FAIL, "a/fixed": ex.UNEXPECTED_PASS, "a/other": ex.NEW_FAILURE,
        "a/tsan-only": ex.EXPECTED_FAIL, "a/new": ex.NEW_FAILURE, "a/fine": "PASS",
        "a/lost-capability": "NOT APPLICABLE", "a/racy": "PASS", "a/racy-failed": ex.EXPECTED_FAIL}
    assert under_tsan.not_in_run == ["a/gone"]
    assert sorted(under_tsan.unexpected) == ["a/fixed", "a/new", "a/other"]
    assert not under_tsan.nothing_unexpected
    under_asan = ex.evaluate(entries, observed, "asan")
    assert under_asan.outcomes["a/tsan-only"] == ex.NEW_FAILURE  # known under tsan only
    only_known = ex.evaluate(entries, [ex.Observed("a/fails", "FAIL"), ex.Observed("a/fine", "PASS")], "tsan")
    assert only_known.nothing_unexpected


def test_update_keeps_reasons_and_other_tiers():
    before = ex.parse(doc(entry("a/still", reason="upstream bug", link="https://x/1"),
                          entry("a/fixed"), entry("a/fixed-here", sanitizers=["tsan", "asan"]),
                          entry("a/asan-only", sanitizers=["asan"]), entry("a/not-run"),
                          entry("a/now-crashes"), entry("a/racy", flaky=True)), "f")
    run = [ex.Observed("a/still", "FAIL"), ex.Observed("a/fixed", "PASS"),
           ex.Observed("a/fixed-here", "PASS"), ex.Observed("a/asan-only", "PASS"),
           ex.Observed("a/now-crashes", "CRASH"), ex.Observed("a/racy", "PASS"),
           ex.Observed("a/new", "TIMEOUT", "saferecl.y/2", "[saferecl] TIMEOUT after 300 s")]
    after = {(e.test, e.sanitizers): e for e in ex.updated(before, run, "tsan")}
    assert after[("a/still", ())].reason == "upstream bug" and after[("a/still", ())].link == "https://x/1"
    assert after[("a/fixed", ("asan", "tso", "none"))].verdicts == ("FAIL",)  # gone under tsan only
    assert ("a/fixed-here", ("asan",)) in after
    assert ("a/asan-only", ("asan",)) in after  # another tier: untouched
    assert ("a/not-run", ()) in after
    assert after[("a/now-crashes", ())].verdicts == ("FAIL", "CRASH")
    assert after[("a/racy", ())].flaky  # a flaky entry's pass says nothing
    new = after[("a/new", ("tsan",))]
    assert new.verdicts == ("TIMEOUT",) and new.paragraph == "saferecl.y/2"
    assert new.reason.startswith(ex.UNEXPLAINED) and "TIMEOUT after 300 s" in new.reason
    # What it writes reads back, and the run it came from is then nothing unexpected.
    again = ex.parse(ex.document(list(after.values())), "written")
    assert ex.evaluate(again, run, "tsan").nothing_unexpected


BUGGY_FAILURES = {  # the failing tests of `buggy` in the mixed fixture, and their verdicts
    "buggy/saferecl.demo/1 a failing test with no requirement row": "FAIL",
    "buggy/saferecl.hp.general/5 H5: the deleter receives the complete object's address": "CRASH",
    "buggy/saferecl.hp.general/6 H8: protect-then-validate survives concurrent exchange and retire": "CRASH",
    "buggy/saferecl.hp.holder.mem/14 H35: member swap exchanges ownership without ending epochs": "NOT BUILT",
    "buggy/saferecl.hp.holder.mem/3 H27: protect of an atomic<int*> is ill-formed": "TIMEOUT",
    "buggy/saferecl.hp.holder.mem/5 H30: try_protect with a changed source returns false": "FAIL",
    "buggy/saferecl.hp.holder.nonmem/4 H37: non-member swap is noexcept, with a \"quoted\" word": "NOT BUILT",
    "buggy/saferecl.rcu.domain.func/1 R28: rcu_default_domain is one object in every thread": "TIMEOUT",
    "buggy/saferecl.rcu.domain.func/2 R32: overlapping readers do not starve rcu_synchronize": "FAIL",
    "buggy/saferecl.rcu.domain.func/3 R30: writes made in a region are visible after rcu_synchronize": "FAIL",
    "buggy/saferecl.rcu.domain.func/4 R33: after rcu_barrier every earlier retire has run once": "TIMEOUT",
    "buggy/saferecl.rcu.domain.general R19: copying an rcu_domain is ill-formed": "FAIL",
    "buggy/saferecl.rcu.general/5 R4: rcu_barrier need not wait for a reader that started later": "FAIL",
}


def mixed_with(tmp_path: Path, expected: list[dict], run_changes: dict | None = None) -> Path:
    out = tmp_path / "mixed"
    shutil.copytree(FIXTURES / "mixed", out, ignore=shutil.ignore_patterns("README.md"))
    (out / "expectations.json").write_text(json.dumps(doc(*expected, comment="from the test")))
    if run_changes:
        run = json.loads((out / "run.json").read_text())
        run.update(run_changes)
        (out / "run.json").write_text(json.dumps(run))
    write_reports(out)
    return out


def known(**drop) -> list[dict]:
    return [entry(t, v, reason=f"reason of {t[:30]}") for t, v in BUGGY_FAILURES.items()
            if t not in drop.get("except_", ())]


def test_every_known_failure_expected_is_nothing_unexpected(tmp_path):
    results = results_of(mixed_with(tmp_path, known()))
    e = results["expectations"]
    assert e["nothing_unexpected"], e
    assert e["counts"] == {ex.EXPECTED_FAIL: len(BUGGY_FAILURES), ex.UNEXPECTED_PASS: 0, ex.NEW_FAILURE: 0}
    assert results["conforming"] is False  # the conformance verdict is unchanged
    by_id = {f"{t['implementation']}/{t['name']}": t for t in results["tests"]}
    h30 = by_id["buggy/saferecl.hp.holder.mem/5 H30: try_protect with a changed source returns false"]
    assert h30["outcome"] == ex.EXPECTED_FAIL and h30["expected"]["reason"].startswith("reason of")
    assert by_id["reference/saferecl.hp.general/6 H8: protect-then-validate survives concurrent "
                 "exchange and retire"]["outcome"] == "PASS"
    buggy = next(i for i in results["implementations"] if i["name"] == "buggy")
    assert buggy["outcomes"][ex.EXPECTED_FAIL] == len(BUGGY_FAILURES)


def test_a_new_failure_and_an_unexpected_pass_are_unexpected(tmp_path):
    new = "buggy/saferecl.hp.general/5 H5: the deleter receives the complete object's address"
    fixed = "reference/saferecl.hp.holder.mem/5 H30: try_protect with a changed source returns false"
    out = mixed_with(tmp_path, [*known(except_=[new]), entry(fixed, reason="was broken in 1.0")])
    e = results_of(out)["expectations"]
    assert not e["nothing_unexpected"]
    assert sorted(e["unexpected"]) == sorted([new, fixed])
    assert e["counts"][ex.NEW_FAILURE] == 1 and e["counts"][ex.UNEXPECTED_PASS] == 1
    summary = (out / "summary.md").read_text()
    assert "**Expectations: UNEXPECTED RESULTS**" in summary
    assert "**CRASH** (new) `saferecl.hp.general/5 H5" in summary
    assert "(unexpected pass)" in summary and "was broken in 1.0" in summary
    assert "**FAIL** (expected) `saferecl.hp.holder.mem/5 H30" in summary
    page = (out / "report.html").read_text()
    assert 'id="expectations"' in page and "UNEXPECTED RESULTS" in page
    assert '<span class="badge o-new"' in page and '<span class="badge o-xpass"' in page


def test_an_unavailable_implementation_chosen_by_name_is_unexpected(tmp_path):
    e = results_of(mixed_with(tmp_path, known(), {"explicit_selection": True}))["expectations"]
    assert not e["nothing_unexpected"] and "std was chosen by name" in e["problems"][0]


def test_a_broken_copy_in_the_directory_counts_every_failure_as_new(tmp_path):
    out = tmp_path / "mixed"
    shutil.copytree(FIXTURES / "mixed", out, ignore=shutil.ignore_patterns("README.md"))
    (out / "expectations.json").write_text('{"schema": "saferecl-expectations/1", "expected": [{}]}')
    results = write_reports(out)
    assert not results["expectations"]["nothing_unexpected"]
    assert any("expectations.json" in n for n in results["notes"])


def test_without_expectations_the_outputs_have_none(rendered):
    results = results_of(rendered("mixed"))
    assert "expectations" not in results and "outcome" not in results["tests"][0]


@pytest.mark.parametrize("impl", ["liburcu", "libcds", "xenium"])
def test_the_shipped_files_are_valid(impl):
    entries = ex.read_file(ADAPTERS / impl / "expectations.json", impl)
    assert entries, f"{impl} ships its known failures"
    assert all(e.reason and not e.reason.startswith(ex.UNEXPLAINED) for e in entries), \
        "every shipped known failure is explained"


def test_the_reference_expects_to_pass_everything():
    """The reference passes every tier, strict included: a known failure there is a bug."""
    assert not (ADAPTERS / "reference" / "expectations.json").exists()


def test_a_known_failure_the_selection_left_out_is_not_in_the_run_and_kept():
    """NOT RUN says nothing: the entry is listed as not in the run, and an update keeps it."""
    before = ex.parse(doc(entry("a/filtered", reason="upstream bug")), "f")
    run = [ex.Observed("a/filtered", "NOT RUN")]
    evaluation = ex.evaluate(before, run, "tsan")
    assert evaluation.not_in_run == ["a/filtered"] and evaluation.nothing_unexpected
    assert [e.reason for e in ex.updated(before, run, "tsan")] == ["upstream bug"]
