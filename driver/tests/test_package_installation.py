"""Package installation says one line: what it installs, then how it ended; apt's own output
only when it fails (issue 48: a fresh machine's first run printed about 60 lines of apt)."""

from __future__ import annotations

import subprocess

import pytest

from driver import environment
from driver.errors import EnvironmentProblem


class FakeApt:
    """apt-get and dpkg-query as a fresh machine answers them: `install` fails until `update`
    ran (no package lists), unless `broken`; every call prints a screenful."""

    def __init__(self, broken: bool = False):
        self.broken, self.updated, self.installed, self.calls = broken, False, set(), []

    def run(self, command, **kwargs):
        self.calls.append(command[:2])
        if command[0] == "dpkg-query":
            ok = command[-1] in self.installed
            return subprocess.CompletedProcess(command, 0 if ok else 1, "install ok installed" if ok else "", "")
        noise = "\n".join(f"Get:{n} http://deb.debian.org/debian bookworm/main" for n in range(60))
        if command[1] == "update":
            self.updated = True
            return subprocess.CompletedProcess(command, 0, noise, None)
        if self.updated and not self.broken:
            self.installed |= {c for c in command if not c.startswith("-") and c not in ("apt-get", "install")}
            return subprocess.CompletedProcess(command, 0, noise, None)
        return subprocess.CompletedProcess(command, 100, noise + "\nE: Unable to locate package cmake", None)


@pytest.fixture
def apt(monkeypatch):
    fake = FakeApt()
    monkeypatch.setattr(environment.subprocess, "run", fake.run)
    monkeypatch.setattr(environment.os, "geteuid", lambda: 0)
    return fake


def test_a_fresh_machine_installs_with_one_line(apt, capsys):
    environment.ensure_packages(["cmake", "ninja-build"])
    out = capsys.readouterr().out
    assert out.count("\n") == 1, out
    assert out.startswith("installing cmake ninja-build (apt-get) ... done (")
    assert apt.calls == [["dpkg-query", "-W"]] * 2 + [["apt-get", "install"], ["apt-get", "update"],
                                                     ["apt-get", "install"], ["dpkg-query", "-W"],
                                                     ["dpkg-query", "-W"]]


def test_a_failed_installation_shows_apts_whole_output(apt, capsys):
    apt.broken = True
    with pytest.raises(EnvironmentProblem) as problem:
        environment.ensure_packages(["cmake"])
    assert capsys.readouterr().out == "installing cmake (apt-get) ... failed\n"
    said = str(problem.value)
    assert said.startswith("apt-get could not install: cmake")
    assert "E: Unable to locate package cmake" in said and "Get:59 " in said and "apt-get update -q" in said


def test_nothing_missing_prints_nothing(apt, capsys):
    apt.installed = {"cmake"}
    environment.ensure_packages(["cmake"])
    assert capsys.readouterr().out == ""
