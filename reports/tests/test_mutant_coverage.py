"""The mutant coverage per requirement row: distinct catalogued bugs killed by the row's
tests, from mutants.json and the mutant catalog."""

from __future__ import annotations

import json
import re

from reports import write_reports
from reports.tests.conftest import FIXTURES, results_of

CATALOG = {"mutants": [
    {"id": "MH-01", "requirement": "[saferecl.hp.holder.mem]/5 H30, [saferecl.hp.general]/6 H8", "status": "mutant"},
    {"id": "MH-02", "requirement": "[saferecl.hp.general]/6 H8", "status": "hardware-dependent"},
    {"id": "MH-05", "requirement": "[saferecl.hp.holder.mem]/5 H30", "status": "mutant"},
    {"id": "MR-09", "requirement": "[saferecl.rcu.domain.func]/4 R33", "status": "not-a-bug"},
]}
H30 = "saferecl.hp.holder.mem/5 H30: try_protect with a changed source returns false"
H8 = "saferecl.hp.general/6 H8: protect-then-validate survives"
R33 = "saferecl.rcu.domain.func/4 R33: after rcu_barrier every earlier retire has run once"


def sweep(tmp_path, mutants, catalog=CATALOG):
    """A directory of ./conformance mutants: mutants.json only; the catalog next to it."""
    (tmp_path / "mutants.json").write_text(json.dumps({"seed": 1, "mutants": mutants}))
    catalog_path = tmp_path / "catalog.json"
    catalog_path.write_text(json.dumps(catalog))
    from reports.analyse import analyse
    from reports.load import load
    from reports.mutants import mutant_coverage
    report = load(tmp_path, mutant_catalog=catalog_path)
    analyse(report)
    return {c.row: c for c in mutant_coverage(report)}


def killed(test, time=1.0):
    return {"test": test, "time": time}


def test_counts_distinct_bugs_per_row(tmp_path):
    coverage = sweep(tmp_path, [
        {"id": "MH-01", "killed_by": [killed(H30), killed(H8), killed(H30 + " again")], "verdict": "killed"},
        {"id": "MH-02", "killed_by": [killed(H8)], "verdict": "killed"},
        {"id": "MH-05", "killed_by": [killed(H30)], "verdict": "killed"},
        {"id": "MR-09", "killed_by": [killed(R33)], "verdict": "WRONGLY KILLED"},
    ])
    assert coverage["H30"].killed == ["MH-01", "MH-05"] and not coverage["H30"].weak
    assert coverage["H8"].killed == ["MH-01", "MH-02"] and not coverage["H8"].weak
    assert coverage["R33"].killed == [] and coverage["R33"].weak, "a not-a-bug variant is no coverage"
    assert coverage["H30"].aimed == ["MH-01", "MH-05"] and coverage["R33"].aimed == []
    assert "G2" not in coverage, "library-wide rows are not part of the mutant coverage"
    assert not any(c.row.startswith("G") for c in coverage.values())


def test_one_killer_is_weak_and_a_survivor_counts_nothing(tmp_path):
    coverage = sweep(tmp_path, [
        {"id": "MH-01", "killed_by": [killed(H30)], "verdict": "killed"},
        {"id": "MH-05", "killed_by": [], "verdict": "SURVIVED"},
    ])
    assert coverage["H30"].killed == ["MH-01"] and coverage["H30"].weak


def test_without_mutants_json_there_is_no_coverage_section(rendered):
    assert "mutant_coverage" not in results_of(rendered("harness"))
    assert 'id="mutant-coverage"' not in (rendered("harness") / "report.html").read_text()


def test_the_page_highlights_weak_rows(rendered):
    out = rendered("mixed")
    text = (out / "report.html").read_text()
    rows = dict(re.findall(r'<tr id="mutant-coverage-([A-Z]\d+)" class="([^"]*)"', text))
    assert rows["H30"] == "coverage-weak", "H30: one bug (MH-01) killed by its tests in the fixture"
    coverage = {c["row"]: c for c in results_of(out)["mutant_coverage"]}
    assert coverage["H30"]["killed"] == ["MH-01"] and coverage["H8"]["killed"] == ["MH-01"]
    assert coverage["H30"]["weak"] is True


def test_the_page_leaves_rows_with_two_killers_plain(tmp_path):
    import shutil
    out = tmp_path / "mixed"
    shutil.copytree(FIXTURES / "mixed", out)
    document = json.loads((out / "mutants.json").read_text())
    document["mutants"][1]["killed_by"] = [killed(H30)]  # MH-05 now killed by H30 as well
    (out / "mutants.json").write_text(json.dumps(document))
    write_reports(out)
    text = (out / "report.html").read_text()
    assert re.search(r'<tr id="mutant-coverage-H30" class="" data-killed="2">', text)


def test_a_sweep_directory_is_the_kill_matrix_and_the_coverage(rendered):
    """The mutants fixture: AM-01 and AM-15 kill through H20 tests, AM-01 alone through H33,
    AM-08 and AM-27 through R36(a)/(b)."""
    out = rendered("mutants")
    results = results_of(out)
    assert results["notes"] == [], "a sweep directory lacks no input"
    coverage = {c["row"]: c for c in results["mutant_coverage"]}
    assert coverage["H20"]["killed"] == ["AM-01", "AM-15"] and coverage["H20"]["weak"] is False
    assert coverage["R36"]["killed"] == ["AM-08", "AM-27"] and coverage["R36"]["weak"] is False
    assert coverage["H33"]["killed"] == ["AM-01"] and coverage["H33"]["weak"] is True
    text = (out / "report.html").read_text()
    assert 'id="mutants"' in text and 'id="mutant-coverage"' in text
    assert 'id="matrix"' not in text and 'id="overall"' not in text, "no verdict of a run"
    assert re.search(r'<tr id="mutant-coverage-H33" class="coverage-weak" data-killed="1">', text)
    assert "hazard_pointer::reset_protection (both overloads) is not noexcept" in text, \
        "the catalog's bug text describes the mutant"
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# saferecl mutants\n")
    assert "Mutants: 4 run, 4 killed; all as the catalog expects." in summary
    assert "- one bug only: H33 (AM-01)\n" in summary and " H20 " not in summary
