"""The console of `./conformance mutants` and `./conformance bench` (driver/console.py Progress,
as in `run`): one progress line, a line of its own at once for an unexpected outcome (a bug
that survives, a case that fails), each item's detail line in a file of the report directory
(printed only under -v). The builds and the runs are replaced by stand-ins: what is checked is
what the console shows while the items come in, without a terminal (a CI log)."""

import io
from pathlib import Path

import pytest

from driver import console
from driver.commands import bench, mutants
from driver.options import MutantOptions
from driver.report_dir import ReportDir

SURVIVOR = {"id": "MR-98", "bug": "a bug the battery misses", "sanitizer": "tsan", "status": "mutant",
            "kill": ["R7"]}
SPARED = {"id": "NB-R98", "bug": "a conforming variant", "sanitizer": "tsan", "status": "not-a-bug",
          "tests": ["^mutants/saferecl[.]rcu[.]"]}
KILLED = {"id": "MR-99", "bug": "a bug the battery kills", "sanitizer": "tsan", "status": "mutant",
          "kill": ["R7"]}


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Console:
    """console.progress(), writing to a string with a clock the stand-ins advance."""

    def __init__(self, monkeypatch):
        self.out, self.clock = io.StringIO(), Clock()
        monkeypatch.setattr(console, "progress", lambda what, total=0: console.Progress(
            what, out=self.out, tty=False, interval=10, clock=self.clock, total=total))


class FakeTree:
    def __init__(self, *args, **kwargs):
        pass

    def configure(self):
        pass

    def build(self, *args, **kwargs):
        pass


def sweep(monkeypatch, tmp_path, catalog, outcome) -> tuple[Console, list[str]]:
    """run_mutants over `catalog` with `outcome(mutant)` -> (tests run, kills) for each run;
    returns the console and what it showed when each mutant started."""
    shown = Console(monkeypatch)
    seen = []

    def run_runtime_mutant(build, mutant, full, jobs, out, seed):
        seen.append(shown.out.getvalue())
        shown.clock.now += 6  # each mutant run takes 6 s
        ran, kills = outcome(mutant)
        verdict, ok = mutants.mutant_catalog.decide(mutant["status"], ran, bool(kills))
        return {**mutant, "sanitizer": "tsan", "tests_run": ran, "killed_by": kills,
                "time_to_first_kill": kills[0]["time"] if kills else None, "run_seconds": 6.0,
                "verdict": verdict, "ok": ok, "attempts": 1}

    monkeypatch.setattr(mutants.mutant_catalog, "load", lambda only: catalog)
    monkeypatch.setattr(mutants, "ensure_packages", lambda packages: None)
    monkeypatch.setattr(mutants, "suite_tests", lambda: {})
    monkeypatch.setattr(mutants, "sources_regex", lambda *args: "")
    monkeypatch.setattr(mutants, "BuildTree", FakeTree)
    monkeypatch.setattr(mutants, "run_runtime_mutant", run_runtime_mutant)
    monkeypatch.setattr(ReportDir, "render", lambda self, title=None: None)
    mutants.run_mutants(MutantOptions(jobs=1, out_base=tmp_path, seed=1))
    return shown, seen


def killed_by_one(mutant):
    return 4, ([{"test": "mutants/saferecl.rcu.barrier/3 R7: barrier", "time": 0.5}]
               if mutant["id"] == KILLED["id"] else [])


def test_a_surviving_mutant_is_shown_as_it_happens(monkeypatch, tmp_path, capsys):
    shown, seen = sweep(monkeypatch, tmp_path, [SURVIVOR, SPARED, KILLED], killed_by_one)
    survivor_line = "UNEXPECTED: MR-98 (mutant, tsan): SURVIVED, 0/4 test(s) failed"
    assert survivor_line in seen[1]  # before the next mutant ran
    log = tmp_path / "latest" / mutants.MUTANTS_LOG
    assert f"detail: {log.resolve()}" in shown.out.getvalue()
    # The expected outcomes are only counted; every mutant has its line in mutants.log.
    assert "NB-R98" not in shown.out.getvalue().replace("| NB-R98", "")
    assert [line.split()[1] for line in log.read_text().splitlines()] == ["MR-98", "NB-R98", "MR-99"]
    assert "\r" not in shown.out.getvalue()
    progress = [line for line in shown.out.getvalue().splitlines() if line.startswith("[")]
    assert progress[-1].startswith("[3/3 mutants] 0:18 | SURVIVED 1, killed 1, spared (conforming) 1 "
                                   "| UNEXPECTED 1"), progress
    # The end is printed by the command itself (not the progress line), at every level.
    assert "mutants: 2/3 as expected; NOT as expected: MR-98" in capsys.readouterr().out


def test_without_a_terminal_a_plain_progress_line_at_most_every_interval(monkeypatch, tmp_path):
    catalog = [{**KILLED, "id": f"MR-{n}"} for n in range(10)]
    shown, _ = sweep(monkeypatch, tmp_path, catalog, lambda m: (4, [{"test": "t", "time": 0.1}]))
    progress = [line for line in shown.out.getvalue().splitlines() if line.startswith("[")]
    # 60 s of mutants: a line when the first starts, at most one per 10 s after, and the end.
    assert 2 <= len(progress) <= 8, progress
    assert progress[-1].startswith("[10/10 mutants] 1:00 | killed 10")
    assert "UNEXPECTED" not in shown.out.getvalue()


@pytest.fixture
def verbose():
    console.set_level(console.VERBOSE)
    yield
    console.set_level(console.NORMAL)


def test_verbose_prints_each_mutants_line_and_no_progress_line(monkeypatch, tmp_path, capsys, verbose):
    monkeypatch.setattr(console, "progress", lambda what, total=0: None)  # what -v gives
    sweep(monkeypatch, tmp_path, [SURVIVOR, KILLED], killed_by_one)
    out = capsys.readouterr().out
    assert "BAD  MR-98" in out and "ok   MR-99" in out
    assert "mutants]" not in out


def test_a_benchmark_case_that_fails_is_shown_as_it_happens(monkeypatch, tmp_path):
    shown = Console(monkeypatch)
    cases = ["rcu/read_lock", "hp/protect", "baseline/atomic_load"]
    seen = []

    def run_bench_case(exe, case, min_time, timeout):
        seen.append((case, shown.out.getvalue()))
        shown.clock.now += 1
        if case == "hp/protect" and exe.name == "liburcu.bench":
            return {"status": "failed", "reason": "killed by signal 11"}
        return {"status": "ok", "ns": 2.0, "cpu_ns": 2.0, "real_ns": 2.0}

    monkeypatch.setattr(bench, "bench_cases", lambda exe: cases)
    monkeypatch.setattr(bench, "run_bench_case", run_bench_case)
    executables = {name: Path(f"/bench/{name}.bench") for name in ("reference", "liburcu")}
    implementations = [{"name": name, "available": True, "built": True, "reason": ""}
                       for name in executables]
    log = tmp_path / "bench.log"
    entries = bench.measure_benchmarks(executables, implementations, 3, 0.1, 20, None, log,
                                       Path("/final/bench.log"))
    failure = "FAILED: hp/protect through liburcu: killed by signal 11\n    detail: /final/bench.log"
    assert failure in next(out for case, out in seen if case == "baseline/atomic_load")
    assert "FAILED: rcu/read_lock" not in shown.out.getvalue()
    assert [line.split()[0] for line in log.read_text().splitlines()] == cases
    progress = [line for line in shown.out.getvalue().splitlines() if line.startswith("[")]
    assert progress[0].startswith("[0/3 cases] 0:00 | rcu/read_lock round 1/3"), progress
    assert progress[-1].startswith("[3/3 cases] 0:16 | failed 1, measured 2 | UNEXPECTED 1"), progress
    assert len(entries) == 6


def test_the_build_counts_itself_on_the_same_line():
    out, clock = io.StringIO(), Clock()
    progress = console.Progress("build steps", out=out, tty=False, interval=10, clock=clock)
    for step in range(1, 101):  # ninja's [step/100], one a second
        clock.now = step
        progress.reached(step, 100)
    progress.end()
    lines = out.getvalue().splitlines()
    assert lines[0] == "[1/100 build steps] 0:01, ETA 1:39"
    assert len(lines) == 11 and lines[-1] == "[100/100 build steps] 1:40", lines
