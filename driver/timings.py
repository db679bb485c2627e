"""Where a run's time went: the wall time of each stage, the summed test time of each
implementation and the slowest tests. `./conformance run` prints it and records it in
run.json ("timings"), which the report's Run section shows, so a slow adapter or a test
that eats the budget is visible without a profiler.

Tests run in parallel, so an implementation's share is the sum of its tests' own durations
(CTest's, from junit.xml), not a slice of the wall clock."""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path

from driver.ctest import verdicts

SLOWEST_SHOWN = 10


class StageClock:
    """Wall seconds of the named stages of one command, in the order they ran."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str):
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds[name] = round(self.seconds.get(name, 0.0) + time.monotonic() - started, 1)


def test_times(junit: Path, sanitizer: str | None = None, runtime: dict | None = None) -> dict:
    """Per implementation {"tests", "seconds"} and the SLOWEST_SHOWN slowest tests of junit.xml
    (verdicts as driver/ctest.py's `verdicts` gives them)."""
    per_impl: dict[str, dict] = {}
    ran = verdicts(junit, sanitizer, runtime)
    for name, _, seconds in ran:
        impl = name.split("/", 1)[0]
        entry = per_impl.setdefault(impl, {"tests": 0, "seconds": 0.0})
        entry["tests"] += 1
        entry["seconds"] = round(entry["seconds"] + seconds, 1)
    slowest = sorted(ran, key=lambda r: -r[2])[:SLOWEST_SHOWN]
    return {"implementations": dict(sorted(per_impl.items())),
            "slowest": [{"test": n, "verdict": v, "seconds": round(s, 1)} for n, v, s in slowest]}


def timings(clock: StageClock, junit: Path, sanitizer: str | None = None, runtime: dict | None = None) -> dict:
    """run.json's "timings"."""
    return {"stages": clock.seconds, **test_times(junit, sanitizer, runtime)}


def lines(recorded: dict) -> list[str]:
    """The console's account of `timings()`."""
    stages = ", ".join(f"{name} {s:.1f} s" for name, s in recorded["stages"].items())
    out = [f"time: {stages}"]
    for impl, t in recorded["implementations"].items():
        out.append(f"   {impl}: {t['tests']} tests, {t['seconds']:.1f} s of test time")
    if recorded["slowest"]:
        out.append(f"   the {len(recorded['slowest'])} slowest tests:")
        out += [f"   {t['seconds']:7.1f} s  {t['verdict']:<14} {t['test']}" for t in recorded["slowest"]]
    return out
