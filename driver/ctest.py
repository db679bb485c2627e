"""Running CTest on a build tree, and reading what it recorded (through the reports'
junit reader and verdict classification: the driver holds no second parser)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterable

from driver import console
from reports import expectations as ex
from reports import protocol
from reports.classify import CaseRecord, classify, headline_of
from reports.index import IndexEntry
from reports.evidence import reclassify
from reports.junit import read_junit

# The test environment's sanitizer defaults; a user's own options win.
# die_after_fork=0: a forked child of a multi-threaded process may start threads (an <rcu>
# restarting its callback worker); TSan otherwise ends it, exit 66, for its own limit
# (reports/tsan_evidence.py: FORK_REFUSAL). The child then runs, its own checks judge it,
# and TSan ignores its accesses (measured there).
SANITIZER_OPTIONS = {
    "TSAN_OPTIONS": "halt_on_error=1 second_deadlock_stack=1 report_signal_unsafe=0 die_after_fork=0",
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
              extra: list[str], quiet: bool = False, watch: LiveVerdicts | None = None) -> int:
    """CTest over the tests of `impls`. Given `watch`, its stream goes through it (into the
    report directory, the console's progress line, each unexpected result as it happens)
    instead of straight to the console."""
    args = ["ctest", "--test-dir", str(build_dir), "-L", implementation_label(impls),
            "-j", str(jobs), "--output-junit", str(junit), "--no-label-summary", *extra]
    args += ["-Q"] if quiet else ["--output-on-failure"]
    if watch is None:
        return subprocess.run(args, env=env).returncode
    with subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", bufsize=1) as ctest:
        watch.read(ctest.stdout)
    return ctest.returncode


# CTest's stream under --output-on-failure: "Start N: <name>" when a test starts (the name in
# full: names hold spaces), "k/n Test #N: <name> ....   Passed   0.05 sec" (or ***Failed,
# ***Timeout, ***Exception: SegFault, ***Skipped, ***Not Run ...) when it ends, and after a
# failure its output, up to the next such line.
START_LINE = re.compile(r"^\s*Start\s+(\d+): (.*)$")
RESULT_LINE = re.compile(r"^\s*(\d+)/\s*(\d+) Test\s+#(\d+): .*?(Passed|\*\*\*\w[^\d]*?|Not Run[^\d]*?)"
                         r"\s+([\d.]+) sec\s*$")
END_LINE = re.compile(r"^\d+% tests passed")


def record_of_stream(name: str, status: str, seconds: float, output: str,
                     entry: IndexEntry | None) -> CaseRecord:
    """The record CTest's junit.xml will hold for a test, from its result line and output:
    what classify() needs to give the verdict the reports will give."""
    record = CaseRecord(name=name, time=seconds, output=output,
                        kind=entry.kind if entry else "", timeout=entry.timeout if entry else None)
    if status == "Passed":
        record.status = "run"
    elif "Skipped" in status:
        record.status, record.skipped, record.skip_message = "notrun", True, "SKIP_RETURN_CODE=77"
    elif "Disabled" in status:
        record.status, record.skipped, record.skip_message = "disabled", True, "Disabled"
    elif "Not Run" in status:
        record.status, record.skipped, record.skip_message = "notrun", True, status.strip("* ")
    else:  # ***Failed, ***Timeout, ***Exception: ...
        record.status, record.failed = "fail", True
    return record


def output_file_name(number: int, name: str) -> str:
    """outputs/<file> of CTest's test #number: unique, and readable in a shell."""
    return f"{number:04d}-" + re.sub(r"[^A-Za-z0-9._=-]+", "_", name)[:120].strip("_") + ".log"


class LiveVerdicts:
    """Reads CTest's stream as it comes: keeps all of it in `log`, writes each failed test's
    output (its sanitizer report, its failed checks) to `outputs/`, and tells `progress` every
    result, with a line of its own for an unexpected one. The verdict is the reports'
    (classify, reclassify: the same record junit.xml will hold) and so is the judgement
    under the known failures (reports/expectations.outcome_of); the final word stays with
    junit.xml, which the reports read at the end."""

    def __init__(self, progress: console.Progress | None, log: Path, outputs: Path, shown_outputs: Path,
                 index: list[IndexEntry], known: list[ex.Expectation], sanitizer: str | None,
                 runtime: dict | None):
        self.progress, self.log, self.outputs, self.shown_outputs = progress, log, outputs, shown_outputs
        self.index = {e.id: e for e in index}
        self.known = {e.test: e for e in known if e.applies_to(sanitizer)}
        self.sanitizer, self.runtime = sanitizer, runtime
        self.names: dict[int, str] = {}
        self.pending: tuple[int, int, str, float, list[str]] | None = None  # a result, its output coming

    def read(self, stream: Iterable[str]) -> None:
        self.outputs.mkdir(parents=True, exist_ok=True)
        if self.progress:
            self.progress.begin()
        with self.log.open("w", encoding="utf-8") as log:
            for line in stream:
                log.write(line)
                if console.level() == console.VERBOSE:
                    print(line, end="", flush=True)
                self.take(line.rstrip("\n"))
        self.settle()
        if self.progress:
            self.progress.end()

    def take(self, line: str) -> None:
        start, result = START_LINE.match(line), RESULT_LINE.match(line)
        if start or result or END_LINE.match(line):
            self.settle()
        elif self.pending:
            self.pending[4].append(line)
        if start:
            self.names[int(start[1])] = start[2].strip()
            if self.progress:
                self.progress.started_item(start[2].split("/", 1)[0])
        if result:
            self.pending = (int(result[3]), int(result[2]), result[4].strip(), float(result[5]), [])

    def settle(self) -> None:
        """The pending result, now that its output (if any) is complete."""
        if self.pending is None:
            return
        number, total, status, seconds, output = self.pending
        self.pending = None
        name = self.names.get(number, f"test #{number}")
        text = "\n".join(output)
        record = record_of_stream(name, status, seconds, text, self.index.get(name))
        c = reclassify(classify(record), text, self.sanitizer, self.runtime)
        where = ""
        if record.failed:
            file_name = output_file_name(number, name)
            (self.outputs / file_name).write_text(text + "\n", encoding="utf-8")
            where = str(self.shown_outputs / file_name)
        outcome = ex.outcome_of(c.verdict, self.known.get(name))
        line = None
        if outcome in ex.UNEXPECTED_OUTCOMES:
            headline = headline_of(text) if text else ""
            line = (f"{outcome}: {name}: {c.verdict}" + (f" ({c.detail})" if c.detail else "")
                    + (f"\n    {headline}" if headline else "") + (f"\n    output: {where}" if where else ""))
        if self.progress:
            self.progress.finished(outcome if outcome == ex.EXPECTED_FAIL else c.verdict, total, line)


def verdicts(junit: Path, sanitizer: str | None = None, runtime: dict | None = None) -> list[tuple[str, str, float]]:
    """(CTest name, verdict, seconds) of every test junit.xml records; given the run's tier and
    C++ runtime (run.json's cxx_runtime), a TSan report TSan could not judge is INCONCLUSIVE,
    as in the reports."""
    if not junit.is_file():
        return []
    return [(case.name, reclassify(classify(case), case.output, sanitizer, runtime).verdict, case.time)
            for case in read_junit(junit).cases]


def failing_tests(junit: Path, sanitizer: str | None = None) -> list[dict]:
    """The tests CTest recorded as failed in any way (a check, a sanitizer, the watchdog, a
    signal, CTest's TIMEOUT: status "fail" or a <failure>), fastest first, named without the
    "<impl>/" prefix, with their verdict and headline (how each one ended: a TIMEOUT, a
    STALL, a race). A NOT APPLICABLE test (skipped, exit status 77) is no failure, nor is an
    INCONCLUSIVE one (a hang while other load starved the process, or what the tier's
    sanitizer could not see: reports/evidence.py)."""
    if not junit.is_file():
        return []
    failed = [{"test": case.name.split("/", 1)[-1], "time": case.time,
               "verdict": reclassify(classify(case), case.output, sanitizer, None).verdict,
               "headline": headline_of(case.output)}
              for case in read_junit(junit).cases if case.failed or case.status == "fail"]
    failed = [k for k in failed if k["verdict"] != protocol.VERDICT_INCONCLUSIVE]
    return sorted(failed, key=lambda k: k["time"])
