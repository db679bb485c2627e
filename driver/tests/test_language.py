"""--std / --stdlib (driver/language.py): std-adapter flags that contradict the build's mode
are rejected, a non-default mode gets build trees of its own, the mode resolves to the flag
the compiler takes (the newest standard by default). The C++ runtime's probe and the TSan
runtime choice: driver/tests/test_cxx_runtime.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from driver import language
from driver.build import BuildTree
from driver.errors import EXIT_USAGE, EnvironmentProblem, UsageError
from driver.language import Request
from driver.paths import ROOT


@pytest.mark.parametrize("request_, flags, libs, expected", [
    (Request("c++26"), "-std=c++20", "", "has -std=c++20, which contradicts --std c++26"),
    (Request("c++26"), "-std=gnu++26", "", "has -std=gnu++26, which contradicts --std c++26"),
    (Request(), "-std=c++2c", "", "choose the standard with --std c++26"),
    (Request(stdlib="libstdc++"), "-stdlib=libc++", "", "has -stdlib=libc++, which contradicts --stdlib libstdc++"),
    (Request(stdlib="libstdc++"), "", "-stdlib=libc++", "--std-libs has -stdlib=libc++"),
    (Request(), "-stdlib=libc++", "", "use --stdlib libc++, which every translation unit gets"),
    (Request(), "-nostdinc++ -isystem /x", "", "use --stdlib-include DIR"),
])
def test_contradicting_std_adapter_flags_are_named(request_, flags, libs, expected):
    problems = language.contradictions(request_, flags, libs)
    assert len(problems) == 1 and expected in problems[0]


@pytest.mark.parametrize("request_, flags, libs", [
    (Request("c++26"), "-std=c++2c -DX=1", ""),
    (Request("c++23", "libc++"), "-std=c++23 -stdlib=libc++", "-stdlib=libc++ -lfoo"),
    (Request(), "-O0 -DNDEBUG", "-lfoo"),
    (Request(), None, None),
])
def test_agreeing_or_unrelated_flags_pass(request_, flags, libs):
    assert language.contradictions(request_, flags, libs) == []


def test_the_command_line_rejects_a_contradiction_with_usage_status():
    result = subprocess.run([sys.executable, str(ROOT / "conformance"), "run", "--impl", "std",
                             "--std-flags=-std=c++20", "--std", "c++26"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == EXIT_USAGE
    assert "--std-flags has -std=c++20, which contradicts --std c++26" in result.stderr
    assert result.stdout == ""


def test_a_missing_library_directory_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="--stdlib-include .*: not a directory"):
        language.parse_request(None, "libc++", [str(tmp_path / "nothing")], None)


def test_each_mode_has_build_trees_of_its_own(monkeypatch, tmp_path):
    monkeypatch.delenv("CXX", raising=False)
    tree = lambda mode: BuildTree("tsan", ["reference"], {}, tmp_path / "tsan", mode=mode).dir.name
    assert tree(Request()) == "tsan"  # the default mode keeps the default trees
    assert tree(Request("c++26")) == "tsan-c++26"
    assert tree(Request("c++26", "libc++")) == "tsan-c++26-libc++"
    one, other = (tree(Request(stdlib="libc++", include_dirs=(d,))) for d in ("/a", "/b"))
    assert one.startswith("tsan-libc++-") and one != other
    assert BuildTree("tsan", ["reference"], {}, tmp_path / "tsan", compiler_command="clang++-22",
                     mode=Request(stdlib="libc++")).dir.name == "tsan-clang++-22-libc++"


@pytest.mark.parametrize("command, request_, standard, flag", [
    ("clang++", Request(), "c++23", "-std=c++2b"),  # clang 14: no C++26 yet
    ("g++-12", Request(), "c++23", "-std=c++23"),
    ("clang++-22", Request(), "c++26", "-std=c++26"),
    ("clang++-22", Request("c++20", "libc++"), "c++20", "-std=c++20"),
])
def test_the_mode_resolves_to_the_compilers_spelling(command, request_, standard, flag):
    path = shutil.which(command)
    assert path, f"{command} is installed by the self-test's packages"
    mode = language.resolve(request_, path)
    assert (mode.standard, mode.flag) == (standard, flag)
    assert mode.cmake_definitions()["SAFERECL_CXX_STANDARD"] == standard[3:]


def test_debians_libcxx_links_statically_and_a_source_built_one_from_its_directory(tmp_path):
    clang = shutil.which("clang++-22")
    assert language.resolve(Request("c++26", "libc++"), clang).link_flags() == ["-stdlib=libc++", "-static-libstdc++"]
    mode = language.Language("c++26", "-std=c++26", "libc++", (str(tmp_path),), (str(tmp_path),))
    assert mode.compile_flags() == ["-std=c++26", "-stdlib=libc++", "-nostdinc++", f"-isystem{tmp_path}"]
    assert mode.link_flags() == ["-stdlib=libc++", f"-L{tmp_path}", f"-Wl,-rpath,{tmp_path}"]


def test_libcxx_needs_clang():
    with pytest.raises(UsageError, match="--stdlib libc\\+\\+ needs clang"):
        language.resolve(Request(stdlib="libc++"), shutil.which("g++-12"))


def test_a_mode_the_compiler_cannot_build_is_one_clear_error(tmp_path):
    with pytest.raises(EnvironmentProblem, match="cannot build c\\+\\+26 with -stdlib=libc\\+\\+"):
        language.resolve(Request("c++26", "libc++", include_dirs=(str(tmp_path),)), shutil.which("clang++-22"))


@pytest.mark.parametrize("command", ["clang++-19", "clang++-22"])
def test_debians_libcxx_packages_follow_the_clang_version(command):
    version = command.split("-")[1]
    assert language.debian_packages(Request(stdlib="libc++"), command) == \
        [f"libc++-{version}-dev", f"libc++abi-{version}-dev"]
    assert language.debian_packages(Request(), command) == []


def test_sanitizer_reports_name_the_symbolizer(monkeypatch):
    """clang 22's TSan runtime finds no symbolizer by itself here (only llvm-14's is on PATH):
    without it a race report has no function names."""
    from driver import ctest
    monkeypatch.delenv("TSAN_OPTIONS", raising=False)
    env = ctest.test_environment(1.0, 1, {})
    assert f"external_symbolizer_path={shutil.which('llvm-symbolizer')}" in env["TSAN_OPTIONS"]
    assert env["TSAN_OPTIONS"].startswith(ctest.SANITIZER_OPTIONS["TSAN_OPTIONS"])


def test_gxx_takes_no_stdlib_option_but_the_run_names_its_library():
    mode = language.resolve(Request(stdlib="libstdc++"), shutil.which("g++-12"))
    assert "-stdlib=libstdc++" not in mode.compile_flags() + mode.link_flags()
    assert mode.cmake_definitions()["SAFERECL_STDLIB"] == "" and mode.describe()["stdlib"] == "libstdc++"
