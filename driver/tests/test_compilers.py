"""--cxx / CXX (driver/compilers.py): which Debian packages provide a compiler, the errors for
a missing one and for one that cannot build a tier (a fake compiler script that rejects the
sanitizer), the per-compiler build trees, and the real g++ and clang++ passing the probe."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from driver import compilers
from driver.build import BuildTree
from driver.errors import EnvironmentProblem


@pytest.mark.parametrize("command, packages", [
    ("clang++-19", ["clang-19", "libclang-rt-19-dev"]), ("/usr/bin/clang++-22", ["clang-22", "libclang-rt-22-dev"]),
    ("clang++", ["clang", "libclang-rt-dev"]), ("g++-12", ["g++-12"]), ("g++", ["g++"]),
    ("/opt/vendor/bin/c++", []),
])
def test_debian_packages(command, packages):
    assert compilers.debian_packages(command) == packages


def test_a_missing_compiler_that_debian_lacks_is_named():
    with pytest.raises(EnvironmentProblem, match="'/opt/none/c\\+\\+' not found"):
        compilers.resolve("/opt/none/c++")


def fake_compiler(tmp_path: Path, stderr: str) -> Path:
    script = tmp_path / "fake++"
    script.write_text("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fake version 1.0'; exit 0; fi\n"
                      f"echo \"{stderr}\" >&2\nexit 1\n")
    script.chmod(0o755)
    return script


def test_a_compiler_that_cannot_build_a_tier_gets_one_line(tmp_path):
    fake = compilers.resolve(str(fake_compiler(tmp_path, "fake++: error: unsupported option '-fsanitize=thread'")))
    assert fake.version == "fake version 1.0"
    with pytest.raises(EnvironmentProblem) as e:
        compilers.check_tier(fake, "tsan")
    message = str(e.value)
    assert "cannot build the tsan tier" in message and "unsupported option '-fsanitize=thread'" in message
    assert "\n" not in message


@pytest.mark.parametrize("command", ["g++-12", "clang++"])
def test_the_installed_compilers_build_the_optimized_tier(command):
    if shutil.which(command) is None:
        pytest.fail(f"{command} is part of the base packages")
    compilers.check_tier(compilers.resolve(command), "none")


def test_a_chosen_compiler_has_build_trees_of_its_own(monkeypatch, tmp_path):
    monkeypatch.delenv("CXX", raising=False)
    assert BuildTree("tsan", ["reference"], {}, tmp_path / "tsan").dir == tmp_path / "tsan"
    monkeypatch.setenv("CXX", "/usr/bin/g++-12")
    assert BuildTree("tsan", ["reference"], {}, tmp_path / "tsan").dir == tmp_path / "tsan-g++-12"
