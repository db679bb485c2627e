"""reports/compare.py: regressions, progressions and other changes between two runs, per test,
requirement row and implementation; its Markdown, its page and its exit status. The new run
is the `mixed` fixture with one reference test made to fail and one buggy test made to pass
(junit.xml edited), so every kind of change is real output of the report writer."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from reports import compare as cmp
from reports import write_reports
from reports.tests.conftest import FIXTURES

H22 = "saferecl.hp.holder.ctor/1 H22: a default-constructed hazard_pointer is empty"
H30 = "saferecl.hp.holder.mem/5 H30: try_protect with a changed source returns false"


def edited_mixed(work: Path, name: str, edit=None) -> Path:
    out = work / name
    shutil.copytree(FIXTURES / "mixed", out, ignore=shutil.ignore_patterns("README.md"))
    if edit:
        junit = out / "junit.xml"
        junit.write_text(edit(junit.read_text()))
    write_reports(out)
    return out


def reference_h22_fails_and_buggy_h30_passes(xml: str) -> str:
    xml = re.sub(r'(<testcase name="reference/' + re.escape(H22) + r'"[^>]*) status="run">',
                 r'\1 status="fail"><failure message=""/>', xml)
    return re.sub(r'(<testcase name="buggy/' + re.escape(H30) + r'"[^>]*) status="fail">\s*<failure message=""/>',
                  r'\1 status="run">', xml)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("compare")
    return (edited_mixed(work, "old"),
            edited_mixed(work, "new", reference_h22_fails_and_buggy_h30_passes))


def test_the_edit_took(runs):
    new = cmp.read_side(runs[1]).doc
    verdicts = {(t["implementation"], t["name"]): t["verdict"] for t in new["tests"]}
    assert verdicts[("reference", H22)] == "FAIL" and verdicts[("buggy", H30)] == "PASS"


def test_same_run_has_no_change(runs):
    c = cmp.compare(cmp.read_side(runs[0]), cmp.read_side(runs[0] / "results.json"))
    assert c.tests == [] and c.rows == [] and c.regressions == 0 and c.exit_status == cmp.EXIT_OK


def test_regressions_and_progressions(runs):
    c = cmp.compare(cmp.read_side(runs[0]), cmp.read_side(runs[1]))
    [reg] = c.of("regression")
    assert (reg.implementation, reg.name, reg.old, reg.new) == ("reference", H22, "PASS", "FAIL")
    assert reg.paragraph == "saferecl.hp.holder.ctor/1" and reg.rows == ["H22"]
    assert reg.ref == "[saferecl.hp.holder.ctor]/1"
    [prog] = c.of("progression")
    assert (prog.implementation, prog.name, prog.old, prog.new) == ("buggy", H30, "FAIL", "PASS")
    rows = {(r.implementation, r.row): r for r in c.rows}
    assert rows[("reference", "H22")].kind == "regression"
    assert (rows[("reference", "H22")].old, rows[("reference", "H22")].new) == ("conforming", "non-conforming")
    assert rows[("buggy", "H30")].kind == "progression"
    impls = {i.name: i for i in c.implementations}
    assert impls["reference"].kind == "regression" and impls["buggy"].kind == "same"
    assert impls["std"].old_conforming is None  # unavailable in both
    assert c.regressions == 3 and c.exit_status == cmp.EXIT_REGRESSION
    # The reverse direction swaps them.
    back = cmp.compare(cmp.read_side(runs[1]), cmp.read_side(runs[0]))
    assert [ch.name for ch in back.of("regression")] == [H30]
    assert [ch.name for ch in back.of("progression")] == [H22]


def test_kinds_of_verdict_change():
    assert cmp.test_kind("PASS", "CRASH") == "regression"
    assert cmp.test_kind("NOT APPLICABLE", "NOT BUILT") == "regression"
    assert cmp.test_kind("TIMEOUT", "PASS") == "progression"
    assert cmp.test_kind("FAIL", "CRASH") == "changed"
    assert cmp.test_kind("PASS", "NOT APPLICABLE") == "changed"
    assert cmp.test_kind("", "FAIL") == "added" and cmp.test_kind("PASS", "") == "removed"


def test_markdown_and_page(runs, tmp_path):
    md_file, page_file = tmp_path / "compare.md", tmp_path / "compare.html"
    code = cmp.main([str(runs[0]), str(runs[1]), "--markdown", str(md_file), "--html", str(page_file)])
    assert code == cmp.EXIT_REGRESSION
    md = md_file.read_text()
    assert md.startswith("# saferecl compare: 3 regression(s), 2 progression(s)")
    assert "## Regressions (1)" in md and f"| reference | `{H22}`" in md and "PASS → **FAIL**" in md
    assert "## Progressions (1)" in md and "FAIL → **PASS**" in md
    assert "| reference | **H22**" in md and "conforming → **non-conforming** | regression |" in md
    assert "| reference | yes → **no** |" in md
    page = page_file.read_text()
    assert 'id="regressions"' in page and "3 regression(s)" in page and "<script" not in page
    assert 'href="https://eel.is/c++draft/saferecl.hp.holder.ctor#1"' in page


def test_run_differences_are_listed(runs, tmp_path):
    import json
    other = tmp_path / "results.json"
    doc = json.loads((runs[0] / "results.json").read_text())
    doc["run"]["seed"] = 7
    other.write_text(json.dumps(doc))
    c = cmp.compare(cmp.read_side(runs[0]), cmp.read_side(other))
    assert ("seed", 42, 7) in c.run_differences
    assert "The runs differ in: seed 42 → 7" in cmp.markdown(c)


def test_unreadable_sides(tmp_path, capsys):
    empty = tmp_path / "dir"
    empty.mkdir()
    with pytest.raises(cmp.Unreadable, match="no such file.*python3 -m reports"):
        cmp.read_side(empty)
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"schema": "saferecl-index/1", "tests": []}')
    with pytest.raises(cmp.Unreadable, match="not a saferecl results.json"):
        cmp.read_side(wrong)
    assert cmp.main([str(wrong), str(wrong)]) == cmp.EXIT_UNREADABLE
    assert "compare:" in capsys.readouterr().err


def test_as_compares_one_implementation_with_another(runs):
    """`compare OLD NEW --as reference=buggy`: the reference's verdicts against buggy's, from
    one run of both, test by test; without the pairing nothing changes."""
    run = cmp.read_side(runs[0])
    paired = cmp.compare(cmp.only_implementation(run, "reference", "buggy"), cmp.only_implementation(run, "buggy"))
    assert paired.of("regression") and {c.implementation for c in paired.tests} == {"buggy"}
    same = cmp.compare(cmp.only_implementation(run, "reference", "std"),
                       cmp.only_implementation(cmp.only_implementation(run, "reference", "std"), "std"))
    assert same.tests == [] and same.rows == [] and same.exit_status == cmp.EXIT_OK
    assert {i["name"] for i in run.doc["implementations"]} >= {"reference", "buggy"}  # not mutated
