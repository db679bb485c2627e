"""./conformance repro's pieces that need no build (driver/repro.py): naming the test, the
compile command without the precompiled header, the paths moved under files/. The whole
reproducer, copied out of the tree, is built and run by ./conformance test's step
(driver/repro_selftest.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from driver import repro
from driver.paths import ROOT

H30 = "saferecl.hp.holder.mem/5 H30: try_protect with a changed source returns false"


def run_dir(tmp_path: Path) -> Path:
    tests = [{"implementation": "reference", "name": H30, "verdict": "PASS", "ctest_name": f"reference/{H30}"},
             {"implementation": "std", "name": H30, "verdict": "FAIL", "ctest_name": f"std/{H30}"},
             {"implementation": "std", "name": H30 + " again", "verdict": "PASS", "ctest_name": f"std/{H30} again"},
             {"implementation": "reference", "name": H30 + " again", "verdict": "PASS",
              "ctest_name": f"reference/{H30} again"}]
    (tmp_path / "run.json").write_text("{}")
    (tmp_path / "results.json").write_text(json.dumps({"tests": tests}))
    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / f"0003-{repro.sanitized('std/' + H30)}.log").write_text("x")
    return tmp_path


def test_a_test_is_named_by_ctest_name_part_or_output_file(tmp_path):
    d = run_dir(tmp_path)
    assert repro.find_test(d, f"reference/{H30}", None)["implementation"] == "reference"
    assert repro.find_test(d, H30, "std")["verdict"] == "FAIL"
    assert repro.find_test(d, "H30: try_protect", None)["implementation"] == "std"  # the failing one
    output = d / "outputs" / f"0003-{repro.sanitized('std/' + H30)}.log"
    assert repro.find_test(d, str(output), None)["ctest_name"] == f"std/{H30}"
    with pytest.raises(repro.ReproProblem, match="no test"):
        repro.find_test(d, "H99", None)
    with pytest.raises(repro.ReproProblem, match="2 tests match"):
        repro.find_test(d, "saferecl.hp", "reference")


def test_the_precompiled_header_becomes_the_header_it_precompiles(tmp_path):
    hxx = tmp_path / "cmake_pch.hxx"
    hxx.write_text('#pragma clang system_header\n#include "/src/suite/support/test.hpp"\n')
    args = ["-DX", "-Xclang", "-fno-pch-timestamp", "-std=c++2b", "-Winvalid-pch", "-Xclang", "-include-pch",
            "-Xclang", str(hxx) + ".pch", "-Xclang", "-include", "-Xclang", str(hxx), "-O1"]
    assert repro.without_pch(args) == ["-DX", "-std=c++2b", "-include", "/src/suite/support/test.hpp", "-O1"]
    assert repro.strip_output(["clang++", "-DX", "-MD", "-MT", "a.o", "-MF", "a.d", "-o", "a.o", "-c", "a.cpp"]) == ["-DX"]


def test_paths_move_under_files_and_system_paths_stay(tmp_path):
    build = ROOT / "build" / "tsan"
    files = repro.Files(tmp_path, build, [Path("/opt/vendor/include")])
    assert files.rewrite(f"-I{ROOT}/suite") == "-I$(HERE)/files/saferecl/suite"
    assert files.rewrite(f"{build}/suite/x.hxx") == "$(HERE)/files/build/suite/x.hxx"
    assert files.rewrite("-I/opt/vendor/include") == "-I$(HERE)/files/ext0"
    assert files.rewrite("-I/usr/include/doctest") == "-I/usr/include/doctest"
    assert files.rewrite("-pthread") == "-pthread"
    assert files.place(Path("/tmp/elsewhere/lib.a")) == "files/other/tmp/elsewhere/lib.a"


def test_the_report_kind_and_the_filter():
    assert repro.sanitizer_report_kind("x\nWARNING: ThreadSanitizer: data race (pid=4)\n") == "ThreadSanitizer: data race"
    assert repro.sanitizer_report_kind("==1==ERROR: AddressSanitizer: heap-use-after-free on address") == \
        "AddressSanitizer: heap-use-after-free"
    assert repro.sanitizer_report_kind("[doctest] Status: FAILURE!") == ""
    assert repro.test_filter("a, b") == "a\\, b"


def test_the_environment_is_the_runs_with_the_tests_own_seed(tmp_path):
    (tmp_path / "implementations.json").write_text(json.dumps(
        [{"name": "mutants", "version": "0.1.0; active mutant MH-03"}]))
    run = {"seed": 7, "stress_scale": 1.0}
    env = repro.environment(run, tmp_path, "mutants", "123")
    assert env["SAFERECL_SEED"] == "123" and env["SAFERECL_MUTANT"] == "MH-03"
    assert "die_after_fork=0" in env["TSAN_OPTIONS"] and "PATH" not in env
    assert repro.environment({**run, "test_environment": {"SAFERECL_MUTANT": "MR-01"}}, tmp_path, "mutants")[
        "SAFERECL_MUTANT"] == "MR-01"
    assert repro.environment(run, tmp_path, "reference")["SAFERECL_SEED"] == "7"
    assert "SAFERECL_MUTANT" not in repro.environment(run, tmp_path, "reference")


def test_the_plan_keeps_the_harness_and_support_units_and_drops_the_other_tests(tmp_path):
    """The reproducer compiles the test's own source, every harness unit the executable links,
    the per-implementation support sources (capabilities.cpp, tracked.cpp: compiled into the
    executable itself), and the implementation's library sources; not the other test sources."""
    build = tmp_path / "build"
    build.mkdir()
    suite = ROOT / "suite"
    test_src = suite / "saferecl.hp/saferecl.hp.general/fork.pass.cpp"
    other = suite / "saferecl.hp/saferecl.hp.general/thread_exit.pass.cpp"
    units = {
        "suite/CMakeFiles/saferecl_test_support.dir/support/main.cpp.o": suite / "support/main.cpp",
        "suite/CMakeFiles/reference.hp.dir/saferecl.hp/saferecl.hp.general/fork.pass.cpp.o": test_src,
        "suite/CMakeFiles/reference.hp.dir/saferecl.hp/saferecl.hp.general/thread_exit.pass.cpp.o": other,
        "suite/CMakeFiles/reference.hp.dir/support/tracked.cpp.o": suite / "support/tracked.cpp",
        "reference-impl/CMakeFiles/saferecl_reference.dir/src/rcu_process.cpp.o":
            ROOT / "reference-impl/src/rcu_process.cpp",
    }
    (build / "compile_commands.json").write_text(json.dumps([
        {"directory": str(build), "file": str(src), "command": f"/usr/bin/clang++ -DX -O1 -o {obj} -c {src}"}
        for obj, src in units.items()]))
    objects = [o for o in units if not o.startswith("reference-impl/")]
    (build / "build.ninja").write_text(
        f"build suite/reference.hp: CXX_EXECUTABLE_LINKER__x {' '.join(objects)} | deps\n"
        "  FLAGS = -g\n  LINK_FLAGS = -fsanitize=thread\n"
        "  LINK_LIBRARIES = reference-impl/libsaferecl_reference.a -pthread\n\n")
    plan = repro.plan(build, {"executable": "reference.hp", "source": str(test_src.relative_to(ROOT))})
    compiled = {u.source.name: u.library for u in plan.units}
    assert compiled == {"main.cpp": "", "fork.pass.cpp": "", "tracked.cpp": "",
                        "rcu_process.cpp": "libsaferecl_reference.a"}, compiled
    assert plan.link_libraries == ["libsaferecl_reference.a", "-pthread"]
    assert plan.link_flags == ["-g", "-fsanitize=thread"] and plan.compiler == "/usr/bin/clang++"


def test_a_tree_configured_again_since_the_run_is_refused(tmp_path):
    (tmp_path / "CMakeCache.txt").write_text("CMAKE_CXX_COMPILER:STRING=/usr/bin/clang++\n"
                                             "SAFERECL_STD_INCLUDE_DIRS:STRING=/other/tree\n")
    run = {"compiler": "/usr/bin/clang++", "std_options": {"SAFERECL_STD_INCLUDE_DIRS": "/vendor/tree"}}
    with pytest.raises(repro.ReproProblem, match="SAFERECL_STD_INCLUDE_DIRS is now '/other/tree'"):
        repro.tree_matches_run(tmp_path, run)
    repro.tree_matches_run(tmp_path, {**run, "std_options": {"SAFERECL_STD_INCLUDE_DIRS": "/other/tree"}})
    with pytest.raises(repro.ReproProblem, match="CMAKE_CXX_COMPILER"):
        repro.tree_matches_run(tmp_path, {"compiler": "/usr/bin/g++-12"})
