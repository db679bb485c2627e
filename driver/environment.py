"""The implementations this checkout has, and the Debian packages a command needs: installed
with apt-get when running as root, otherwise named in an EnvironmentProblem with the exact
command to run."""

from __future__ import annotations

import os
import subprocess
import time

from driver import console
from driver.errors import EnvironmentProblem, UsageError
from driver.paths import ADAPTERS

# What every run needs; adapters add theirs in adapters/<name>/packages. `patch` applies the
# compile-time API mutants (adapters/mutants/api/); Debian images usually have it already.
BASE_PACKAGES = ["clang", "libclang-rt-dev", "cmake", "ninja-build", "doctest-dev", "patch"]
BENCH_PACKAGES = ["libbenchmark-dev"]
# The reports (reports/) and the tooling's unit tests, for Debian's /usr/bin/python3.
PYTHON_PACKAGES = ["python3-jinja2", "python3-pytest"]
CONSOLE_CHECK_PACKAGES = ["tmux"]  # driver/tests/test_console_tmux.py reads a real run's screen


def known_implementations() -> list[str]:
    return sorted(p.name for p in ADAPTERS.iterdir() if (p / "adapter.cmake").is_file())


# Adapters a run takes only by name (--impl): the mutants, selected one at a time, and the
# adapter guide's worked example (adapters/README.md), which ./conformance test runs on a slice.
NOT_DEFAULT = ("mutants", "example")


def default_selection() -> list[str]:
    """Every implementation but NOT_DEFAULT."""
    return [n for n in known_implementations() if n not in NOT_DEFAULT]


def adapter_packages(impl: str) -> list[str]:
    path = ADAPTERS / impl / "packages"
    if not path.is_file():
        return []
    return [w for line in path.read_text().splitlines() for w in line.split("#", 1)[0].split()]


def packages_for(impls: list[str], *extra: list[str]) -> list[str]:
    return BASE_PACKAGES + [p for group in extra for p in group] + \
        [p for i in impls for p in adapter_packages(i)]


def missing_packages(packages: list[str]) -> list[str]:
    missing = []
    for pkg in dict.fromkeys(packages):
        probe = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                               capture_output=True, text=True)
        if probe.returncode != 0 or "install ok installed" not in probe.stdout:
            missing.append(pkg)
    return missing


def ensure_packages(packages: list[str]) -> None:
    """Installs missing Debian packages when root; otherwise says exactly what to run. The
    console gets one line (what is installed, then how long it took); apt's own output only
    when it fails, in full."""
    missing = missing_packages(packages)
    if not missing:
        return
    command = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]
    if os.geteuid() != 0:
        raise EnvironmentProblem(
            "missing Debian packages: " + " ".join(missing) +
            "\nInstall them with:\n  sudo apt-get update && sudo " + " ".join(command))
    start = time.monotonic()
    line = console.begin_line(f"installing {' '.join(missing)} (apt-get) ...")
    outputs = []
    if not _apt(command, outputs):  # a fresh machine has no package lists yet
        if _apt(["apt-get", "update", "-q"], outputs):
            _apt(command, outputs)
    still = missing_packages(missing)
    if still:
        line.end("failed")
        raise EnvironmentProblem("apt-get could not install: " + " ".join(still) + "\n" + "\n".join(outputs))
    line.end(f"done ({console.elapsed(start)})")


def _apt(command: list[str], outputs: list[str]) -> bool:
    """Runs one apt-get command quietly; its whole output is kept in `outputs` for an error."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    outputs.append(f"$ {' '.join(command)}  (exit status {done.returncode})\n{done.stdout.rstrip()}")
    return done.returncode == 0


def parse_impls(text: str | None) -> list[str] | None:
    """--impl: implementation names; `mutant:ID` selects one catalogued mutant of the
    reference. None when the option was not given."""
    if text is None:
        return None
    from driver import mutant_catalog
    names = [n.strip() for n in text.split(",") if n.strip()]
    known = known_implementations()
    unknown = [n for n in names
               if (n not in known or n == "mutants") and not n.startswith("mutant:")]
    if unknown or not names:
        valid = ", ".join(k for k in known if k != "mutants")
        raise UsageError(f"unknown implementation {', '.join(unknown) or '(none given)'}; "
                         f"valid names: {valid}, or mutant:<id> (adapters/mutants/catalog.json)")
    mutants = [n.split(":", 1)[1] for n in names if n.startswith("mutant:")]
    if len(mutants) > 1:
        raise UsageError("one mutant per run (the active mutant is process-wide): "
                         + ", ".join(mutants))
    if mutants and mutant_catalog.load(mutants)[0].get("compile_time"):
        raise UsageError(f"{mutants[0]} changes declarations, so it needs its own build: "
                         f"./conformance mutants --only {mutants[0]}")
    return names


def active_mutant(impls: list[str]) -> tuple[list[str], dict[str, str]]:
    """`mutant:ID` -> the `mutants` implementation, with the environment that activates ID."""
    mutant = next((n.split(":", 1)[1] for n in impls if n.startswith("mutant:")), None)
    if mutant is None:
        return impls, {}
    return [("mutants" if n.startswith("mutant:") else n) for n in impls], {"SAFERECL_MUTANT": mutant}
