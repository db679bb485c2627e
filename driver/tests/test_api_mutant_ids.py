"""The compile-time API mutants (AM-xx) exist in two places that must agree: their catalog
entries (adapters/mutants/catalog.json, "compile_time": true), which say what each breaks and
which tests kill it, and their patches (adapters/mutants/api/AM-xx.patch), which are the code.
The mutants adapter applies the patch to a copy of reference-impl/ when a build is configured
with -DSAFERECL_API_MUTANT=<n>; a patch that no longer applies would only surface there, in
a mutant sweep. These tests catch both kinds of drift in a second, and check that the
reference itself carries no trace of them.

Standalone: the standard library, pytest and the `patch` program (the same one CMake uses).
Run: /usr/bin/python3 -m pytest driver/tests/test_api_mutant_ids.py
"""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference-impl"
PATCHES = ROOT / "adapters" / "mutants" / "api"
CATALOG = ROOT / "adapters" / "mutants" / "catalog.json"
API_MUTANT_ID = re.compile(r"AM-\d\d")


def catalog_api_mutants() -> dict[str, dict]:
    entries = json.loads(CATALOG.read_text())["mutants"]
    return {e["id"]: e for e in entries if e.get("compile_time")}


def patch_ids() -> set[str]:
    return {p.stem for p in PATCHES.glob("*.patch")}


def test_patch_files_are_named_by_id():
    for path in PATCHES.iterdir():
        assert path.suffix == ".patch" and API_MUTANT_ID.fullmatch(path.stem), (
            f"{path.relative_to(ROOT)}: adapters/mutants/api/ holds only AM-nn.patch files")


def test_every_catalogued_api_mutant_has_a_patch():
    missing = sorted(set(catalog_api_mutants()) - patch_ids())
    assert not missing, f"catalog.json lists {missing} but adapters/mutants/api/ has no patch"


def test_every_patch_is_catalogued():
    uncatalogued = sorted(patch_ids() - set(catalog_api_mutants()))
    assert not uncatalogued, f"patches {uncatalogued} have no compile_time entry in catalog.json"


def test_api_mutant_entries_and_only_they_are_compile_time():
    entries = json.loads(CATALOG.read_text())["mutants"]
    for entry in entries:
        is_api = bool(API_MUTANT_ID.fullmatch(entry["id"]))
        assert bool(entry.get("compile_time")) == is_api, (
            f"{entry['id']}: \"compile_time\" must be true exactly for the AM-nn entries")


def test_reference_carries_no_api_mutant():
    """The public headers read like the model: no AM switch, no AM id, anywhere in the
    reference (run-time SAFERECL_MUTANT hooks are a different, allowed thing)."""
    for path in sorted(REFERENCE.rglob("*")):
        if path.suffix not in (".hpp", ".cpp", ".h"):
            continue
        text = path.read_text()
        assert "SAFERECL_API_MUTANT" not in text, f"{path.relative_to(ROOT)}: API mutant switch"
        found = API_MUTANT_ID.search(text)
        assert not found, f"{path.relative_to(ROOT)}: mentions {found[0]}"


@pytest.mark.parametrize("mutant_id", sorted(patch_ids()))
def test_patch_applies_to_the_current_reference(mutant_id, tmp_path):
    """Applied exactly as adapters/mutants/adapter.cmake applies it (no fuzz), to a copy of
    reference-impl's include/ and src/; it must change only files there."""
    patch_program = shutil.which("patch")
    assert patch_program, "the API mutants need the program `patch` (apt-get install patch)"
    patch = PATCHES / f"{mutant_id}.patch"
    touched = re.findall(r"^\+\+\+ b/(\S+)", patch.read_text(), re.MULTILINE)
    assert touched, f"{mutant_id}: the patch changes nothing"
    for rel in touched:
        assert rel.split("/")[0] in ("include", "src"), f"{mutant_id}: patches {rel}"
    for part in ("include", "src"):
        shutil.copytree(REFERENCE / part, tmp_path / part)
    result = subprocess.run(
        [patch_program, "-p1", "--batch", "--forward", "--fuzz=0", "--no-backup-if-mismatch",
         "--input", str(patch)],
        cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, (
        f"{mutant_id} no longer applies to reference-impl/:\n{result.stdout}{result.stderr}")
    for rel in touched:
        assert (tmp_path / rel).read_text() != (REFERENCE / rel).read_text(), (
            f"{mutant_id}: {rel} unchanged after patching")
