"""./conformance runtime reports wall time: the build's time in its stamp runs from the first
step (packages) to the last (the clean-up of the work directory), each step is timed, and
the command's line gives its own wall time (issue 38: "built in 106 s" was 149 s of wall
time, because installing packages and the clean-up were outside the clock)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from driver import libcxx_build
from driver.commands import runtime

TOOLCHAIN = libcxx_build.Toolchain("/usr/bin/clang++-22", "clang-22", "llvm-toolchain-22", "1:22.1.8-1~deb12u1")
STEP = 0.2  # seconds each faked step takes


def fake_build(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SAFERECL_CACHE", str(tmp_path))

    def slow(result=None):
        def step(*args, **kwargs):
            time.sleep(STEP)
            return result
        return step

    def unpack(tarball, root, say):
        time.sleep(STEP)
        root.mkdir(parents=True, exist_ok=True)
        (root / "big").write_text("x")
        return root

    def install(build, jobs, say):
        time.sleep(STEP)
        home = tmp_path / TOOLCHAIN.key("tsan")
        home.mkdir(parents=True, exist_ok=True)
        (home / "libc++.so").write_text("x" * 1000)

    real_rmtree = libcxx_build.shutil.rmtree
    monkeypatch.setattr(libcxx_build, "ensure_packages", slow())
    monkeypatch.setattr(libcxx_build, "fetch_tarball", slow(tmp_path / "llvm.orig.tar.xz"))
    monkeypatch.setattr(libcxx_build, "unpack", unpack)
    monkeypatch.setattr(libcxx_build, "configure", slow())
    monkeypatch.setattr(libcxx_build, "build_and_install", install)
    monkeypatch.setattr(libcxx_build.shutil, "rmtree",
                        lambda path, **kw: (time.sleep(STEP), real_rmtree(path, **kw)))


def test_the_stamp_holds_the_wall_time_of_every_step(monkeypatch, tmp_path):
    fake_build(monkeypatch, tmp_path)
    started = time.monotonic()
    home = libcxx_build.build_runtime(TOOLCHAIN, "tsan", 2, lambda line: None)
    wall = time.monotonic() - started
    facts = libcxx_build.stamp(home)
    assert list(facts["stages"]) == ["packages", "download", "unpack", "configure", "build and install", "clean-up"]
    assert all(seconds >= STEP - 0.05 for seconds in facts["stages"].values()), facts["stages"]
    assert 6 * STEP - 0.1 <= facts["build_seconds"] <= wall + 0.1, (facts, wall)


def test_the_command_says_its_wall_time(monkeypatch, tmp_path, capsys):
    fake_build(monkeypatch, tmp_path)
    monkeypatch.setattr(runtime.libcxx_build, "toolchain_of", lambda path: TOOLCHAIN)

    class Args:
        cxx, source, sanitizer, jobs = "clang++-22", None, "tsan", 2

    assert runtime.command(Args()) == 0
    said = capsys.readouterr().err
    line = next(l for l in said.splitlines() if "wall time" in l)
    seconds = float(line.split("built in ")[1].split(" s")[0])
    stages = dict(re.findall(r"([a-z][a-z -]*?) (\d+\.\d) s", line.split("(", 1)[1]))
    assert seconds >= 6 * STEP - 0.1, line
    assert float(stages["packages"]) >= STEP - 0.05 and float(stages["clean-up"]) >= STEP - 0.05, line
    assert runtime.command(Args()) == 0
    assert "found in the cache in" in capsys.readouterr().err
