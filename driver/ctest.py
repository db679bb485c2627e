"""Running CTest on a build tree, and reading what it recorded (through the reports'
junit reader and verdict classification: the driver holds no second parser)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from reports.classify import classify
from reports.tsan_evidence import reclassify
from reports.junit import read_junit

# The test environment's sanitizer defaults; a user's own options win.
SANITIZER_OPTIONS = {
    "TSAN_OPTIONS": "halt_on_error=1 second_deadlock_stack=1 report_signal_unsafe=0",
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1",
    "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
}
EMPTY_JUNIT = ('<?xml version="1.0" encoding="UTF-8"?>\n'
               '<testsuite name="saferecl" tests="0" failures="0" skipped="0" time="0"/>\n')


def implementation_label(impls: list[str]) -> str:
    """The ctest -L regex selecting the tests of `impls`."""
    return "^impl=(" + "|".join(re.escape(i) for i in impls) + ")$"


# How long a watchdog scope may go without progress (suite/support/watchdog.hpp). Every
# blocking step has its own scope, and loops report progress each round, so in the quick
# profile a hang costs 10 s instead of a minute; the long profiles run longer steps.
QUICK_WATCHDOG_SECONDS = 10
LONG_WATCHDOG_SECONDS = 60


def test_environment(scale: float, seed: int, extra: dict[str, str]) -> dict[str, str]:
    """The tests' environment: the caller's, then `extra`, then the profile's knobs (a
    SAFERECL_WATCHDOG_SECONDS already set by either wins)."""
    env = dict(os.environ)
    env.update(extra)
    env["SAFERECL_STRESS_SCALE"] = str(scale)
    env["SAFERECL_SEED"] = str(seed)
    env.setdefault("SAFERECL_WATCHDOG_SECONDS",
                   str(QUICK_WATCHDOG_SECONDS if scale <= 1 else LONG_WATCHDOG_SECONDS))
    for key, value in sanitizer_options().items():
        env.setdefault(key, value)
    return env


def sanitizer_options() -> dict[str, str]:
    """SANITIZER_OPTIONS, naming the symbolizer on PATH: the runtimes of a clang++-N without
    its llvm-N package find none by themselves, and a race report without function names
    cannot say whether its stacks lie in the test, the implementation or the C++ runtime."""
    symbolizer = shutil.which("llvm-symbolizer")
    if symbolizer is None:
        return dict(SANITIZER_OPTIONS)
    return {key: value + (f":external_symbolizer_path={symbolizer}" if key == "ASAN_OPTIONS"
                          else f" external_symbolizer_path={symbolizer}" if key == "TSAN_OPTIONS" else "")
            for key, value in SANITIZER_OPTIONS.items()}


def run_ctest(build_dir: Path, impls: list[str], jobs: int, junit: Path, env: dict[str, str],
              extra: list[str], quiet: bool = False) -> int:
    args = ["ctest", "--test-dir", str(build_dir), "-L", implementation_label(impls),
            "-j", str(jobs), "--output-junit", str(junit), "--no-label-summary", *extra]
    args += ["-Q"] if quiet else ["--output-on-failure"]
    return subprocess.run(args, env=env).returncode


def verdicts(junit: Path, sanitizer: str | None = None, runtime: dict | None = None) -> list[tuple[str, str, float]]:
    """(CTest name, verdict, seconds) of every test junit.xml records; given the run's tier and
    C++ runtime (run.json's cxx_runtime), a TSan report TSan could not judge is INCONCLUSIVE,
    as in the reports."""
    if not junit.is_file():
        return []
    return [(case.name, reclassify(classify(case), case.output, sanitizer, runtime).verdict, case.time)
            for case in read_junit(junit).cases]


def failing_tests(junit: Path) -> list[dict]:
    """The tests CTest recorded as failed in any way (a check, a sanitizer, the watchdog, a
    signal, CTest's TIMEOUT: status "fail" or a <failure>), fastest first, named without the
    "<impl>/" prefix. A NOT APPLICABLE test (skipped, exit status 77) is no failure."""
    if not junit.is_file():
        return []
    failed = [{"test": case.name.split("/", 1)[-1], "time": case.time}
              for case in read_junit(junit).cases if case.failed or case.status == "fail"]
    return sorted(failed, key=lambda k: k["time"])
