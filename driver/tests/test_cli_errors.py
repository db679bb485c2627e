"""Bad input gets a clear error: an unknown implementation, sanitizer, profile or mutant is
rejected with exit status 2 and the valid names, before anything is built."""

import subprocess
import sys

import pytest

from driver.errors import EXIT_USAGE
from driver.paths import ROOT


@pytest.mark.parametrize("argv, expected", [
    (["run", "--impl", "nosuch"], "valid names: "),
    (["run", "--impl", "mutant:MR-03,mutant:MH-01"], "one mutant per run"),
    (["run", "--sanitizer", "msan"], "invalid choice"),
    (["run", "--profile", "forever"], "invalid choice"),
    (["mutants", "--only", "MX-99"], "unknown mutant MX-99"),
    (["bench", "--impl", "mutant:MR-03"], "bench measures implementations, not mutants"),
    (["run", "--std", "c++17"], "invalid choice"),
    (["run", "--impl", "std", "--std", "c++26", "--std-flags=-std=c++20"], "contradicts --std c++26"),
    (["run", "--impl", "std", "--std-libs=-stdlib=libc++"], "use --stdlib libc++"),
    (["run", "--stdlib", "libc++", "--stdlib-include", "/nonexistent"], "--stdlib-include /nonexistent: no such directory"),
    (["run", "--stdlib-libdir", "/nonexistent"], "--stdlib-libdir /nonexistent: no such directory"),
    (["run", "--impl", "std", "--std-include", "/nonexistent"], "--std-include /nonexistent: no such directory"),
    (["list", "--std-include", "conformance"], "--std-include conformance: not a directory"),
    (["run", "--impl", "std", "--std-libs", "-pthread /nonexistent/libstd.a"],
     "--std-libs /nonexistent/libstd.a: no such file"),
    (["run", "--impl", "std", "--std-libs", "libmissing.so"], "--std-libs libmissing.so: no such file"),
    (["run", "--expect", "/nonexistent.json"], "--expect /nonexistent.json: no such file"),
    (["run", "--expect", "/nonexistent/x.json", "--update-expectations"], "--expect /nonexistent: no such directory"),
    (["compare", "a", "b", "--as", "reference"], "--as takes A=B"),
])
def test_rejected_with_usage_status(argv, expected):
    result = subprocess.run([sys.executable, str(ROOT / "conformance"), *argv],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == EXIT_USAGE, result.stderr
    assert expected in result.stderr
    assert result.stdout == ""  # nothing started


@pytest.mark.parametrize("word, is_path", [
    ("-pthread", False), ("-lfoo", False), ("-Wl,--as-needed", False), ("/opt/std/libstd.a", True),
    ("./libstd.so", True), ("../lib/libstd.so.1", True), ("libstd.a", True),
])
def test_only_path_looking_std_libs_words_are_checked(word, is_path):
    from driver.cli import _looks_like_path
    assert _looks_like_path(word) == is_path
