"""A run's record of its build (driver/repro_record.py): ./conformance repro builds from it
after the tree was configured again (another --std-include, the compiler spelled another way)
or removed, and refuses, naming the file, when a source the test compiled has changed
(issue 48). The whole round trip on a real run is ./conformance test's repro self-test."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from driver import repro, repro_record
from driver.paths import ROOT

TEST = "saferecl.hp.general/6 H7: a child survives"
SOURCE = "suite/saferecl.hp/saferecl.hp.general/fork.pass.cpp"
LIBRARY_SOURCE = ROOT / "reference-impl/src/rcu_process.cpp"


def configure(build: Path, vendor: Path) -> None:
    """A build tree of one test executable: the test source, a harness unit, the library."""
    build.mkdir(parents=True, exist_ok=True)
    units = {
        "suite/CMakeFiles/std.hp.dir/saferecl.hp/saferecl.hp.general/fork.pass.cpp.o": ROOT / SOURCE,
        "suite/CMakeFiles/saferecl_test_support.dir/support/main.cpp.o": ROOT / "suite/support/main.cpp",
        "reference-impl/CMakeFiles/saferecl_reference.dir/src/rcu_process.cpp.o": LIBRARY_SOURCE,
    }
    (build / "compile_commands.json").write_text(json.dumps([
        {"directory": str(build), "file": str(src),
         "command": f"/usr/bin/clang++ -isystem {vendor} -O1 -o {obj} -c {src}"} for obj, src in units.items()]))
    objects = [o for o in units if not o.startswith("reference-impl/")]
    (build / "build.ninja").write_text(
        f"build suite/std.hp: CXX_EXECUTABLE_LINKER__x {' '.join(objects)} | deps\n"
        "  FLAGS = -g\n  LINK_FLAGS = -fsanitize=thread\n"
        "  LINK_LIBRARIES = reference-impl/libsaferecl_reference.a -pthread\n\n")
    (build / "CMakeCache.txt").write_text(f"CMAKE_CXX_COMPILER:STRING=clang++\nSAFERECL_STD_INCLUDE_DIRS:STRING={vendor}\n")


@pytest.fixture
def run(tmp_path, monkeypatch):
    """A run's report directory with its record, over a tree whose vendor header is read by
    the test source (the dependency log says so)."""
    vendor = tmp_path / "vendor"
    vendor.mkdir()
    (vendor / "hazard_pointer").write_text("// the vendor's header, as the run compiled it\n")
    build = tmp_path / "build"
    configure(build, vendor)
    monkeypatch.setattr(repro_record, "dependency_log", lambda b: {
        "suite/CMakeFiles/std.hp.dir/saferecl.hp/saferecl.hp.general/fork.pass.cpp.o":
            [str(ROOT / SOURCE), str(vendor / "hazard_pointer"), "/usr/include/stdio.h"]})
    directory = tmp_path / "report"
    directory.mkdir()
    (directory / "run.json").write_text(json.dumps({
        "build_dir": str(build), "compiler": "/usr/bin/clang++", "seed": 7, "sanitizer": "tsan",
        "std_options": {"SAFERECL_STD_INCLUDE_DIRS": str(vendor)}}))
    (directory / "results.json").write_text(json.dumps({"tests": [
        {"implementation": "std", "name": TEST, "verdict": "FAIL", "ctest_name": f"std/{TEST}"}]}))
    (directory / "index.json").write_text(json.dumps({"tests": [
        {"id": f"std/{TEST}", "executable": "std.hp", "source": SOURCE, "kind": "lifetime"}]}))
    (directory / "implementations.json").write_text("[]")
    repro_record.write(directory, build, ["std.hp"])
    return directory, build, vendor


def test_the_reproducer_is_the_runs_after_the_tree_was_configured_again(run, tmp_path):
    directory, build, vendor = run
    other = tmp_path / "other-vendor"
    other.mkdir()
    configure(build, other)  # a later run with another --std-include
    (build / "CMakeCache.txt").write_text(f"CMAKE_CXX_COMPILER:STRING=/usr/bin/clang++\nSAFERECL_STD_INCLUDE_DIRS:STRING={other}\n")
    made, _ = repro.make(TEST, directory, None, tmp_path / "out", "test")
    makefile = (made / "Makefile").read_text()
    assert "files/ext0" in makefile and "other-vendor" not in makefile
    assert (made / "files" / "ext0" / "hazard_pointer").read_text().startswith("// the vendor's header")
    assert {p.name for p in (made / "files").rglob("*.cpp")} == {"fork.pass.cpp", "main.cpp", "rcu_process.cpp"}


def test_the_reproducer_needs_no_build_tree(run, tmp_path):
    directory, build, _ = run
    shutil.rmtree(build)
    made, _ = repro.make(TEST, directory, None, tmp_path / "out", "test")
    assert (made / "build.sh").is_file() and "-O1" in (made / "Makefile").read_text()


def test_a_changed_source_is_named(run, tmp_path):
    directory, _, vendor = run
    (vendor / "hazard_pointer").write_text("// fixed since\n")
    with pytest.raises(repro.ReproProblem, match=r"(?s)1 of the files this test compiled changed since the run.*"
                                                 r"vendor/hazard_pointer"):
        repro.make(TEST, directory, None, tmp_path / "out", "test")


def test_compilers_are_compared_by_the_program_they_run(tmp_path):
    """A run without a record: clang++ and /usr/bin/clang++ are the same compiler."""
    if shutil.which("clang++") is None:
        pytest.skip("needs clang++ on PATH")
    (tmp_path / "CMakeCache.txt").write_text("CMAKE_CXX_COMPILER:STRING=clang++\n")
    repro.tree_matches_run(tmp_path, {"compiler": str(Path(shutil.which("clang++")).resolve())})
    with pytest.raises(repro.ReproProblem, match="CMAKE_CXX_COMPILER"):
        repro.tree_matches_run(tmp_path, {"compiler": "/usr/bin/g++"})
