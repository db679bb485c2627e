"""The console of a test run: one progress line and one line per unexpected result.

CTest's stream goes to a file in the report directory (ctest.log); the console gets
`Progress`, fed the stream line by line as it arrives. From CTest's result lines

      12/285 Test  #12: reference/saferecl.hp... ....   Passed    0.52 sec
      13/285 Test  #13: liburcu/saferecl.rcu... ...***Failed    1.10 sec

it keeps one status line (tests done/total, elapsed, ETA, counts by result, the
implementations running), redrawn in place (\\r) on a terminal and printed as a plain line
every `interval` seconds otherwise (a CI log), and prints, as it happens, a line for each
result the known failures (reports/expectations.py) do not account for: a failure without
an entry, or a pass of an entry that is not flaky. Which failing verdict it is (FAIL, CRASH,
a sanitizer's report) only junit.xml and the reports tell, at the end: here a result is
CTest's word, and a failure is unexpected only when no entry names the test at all.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TextIO

from reports import expectations as ex

# "  12/285 Test  #12: name ....   Passed    0.52 sec"; "***Failed", "***Exception: SegFault",
# "***Timeout", "***Skipped", "***Not Run", "Not Run (Disabled)".
# CTest pads the name with " ..." to the longest name's width: the name ends at the last " .".
RESULT_LINE = re.compile(r"^\s*(\d+)/\s*(\d+) Test\s+#\d+: (.*) \.+\s*(?:\*\*\*)?"
                         r"(Passed|Failed|Exception|Timeout|Skipped|Not Run)\b.*?(?:([\d.]+) sec)?\s*$")
# CTest's word -> how the status line counts it, in the status line's order.
RESULTS = {"Passed": "passed", "Failed": "failed", "Exception": "crashed", "Timeout": "timed out",
           "Skipped": "not applicable", "Not Run": "not run"}
NOT_FAILURES = {"Passed", "Skipped"}


@dataclass(frozen=True)
class Result:
    done: int
    total: int
    test: str  # the CTest name "<impl>/<test>"
    status: str  # CTest's word: a key of RESULTS
    seconds: float | None


def parse_result(line: str) -> Result | None:
    m = RESULT_LINE.match(line)
    if not m:
        return None
    return Result(int(m[1]), int(m[2]), m[3], m[4], float(m[5]) if m[5] else None)


def known_failures(files: list[tuple[Path, list[ex.Expectation]]],
                   sanitizer: str | None) -> dict[str, ex.Expectation]:
    """The entries of driver/known_failures.read() that apply under `sanitizer`, by CTest name."""
    return {e.test: e for _, entries in files for e in entries if e.applies_to(sanitizer)}


def unexpected(result: Result, known: dict[str, ex.Expectation]) -> str | None:
    """What is unexpected about `result` under the known failures, or None."""
    entry = known.get(result.test)
    if result.status in NOT_FAILURES:
        if result.status == "Passed" and entry is not None and not entry.flaky:
            return ex.UNEXPECTED_PASS
        return None
    return ex.NEW_FAILURE if entry is None else None


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600 else \
        f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    """Feed it CTest's stream (`line()`), then `finish()`."""

    def __init__(self, running: str, known: dict[str, ex.Expectation], log: Path,
                 out: TextIO | None = None, terminal: bool | None = None, interval: float = 10.0,
                 clock: Callable[[], float] = time.monotonic):
        self.out = out if out is not None else sys.stdout
        self.terminal = self.out.isatty() if terminal is None else terminal
        self.running, self.known, self.log = running, known, log
        self.interval, self.clock = interval, clock
        self.started = self.last_printed = clock()
        self.done, self.total, self.lines = 0, None, 0
        self.counts: dict[str, int] = {}
        self.surprises = 0
        self.shown_done = 0  # tests done as the last plain status line said
        self.drawn = 0  # length of the status line on the terminal now

    def line(self, text: str) -> None:
        """The next line of CTest's stream (as written to `log`: this is its line number there)."""
        self.lines += 1
        result = parse_result(text)
        if result is None:
            return
        self.done, self.total = result.done, result.total
        word = RESULTS[result.status]
        self.counts[word] = self.counts.get(word, 0) + 1
        surprise = unexpected(result, self.known)
        if surprise:
            self.surprises += 1
            self._print(f"{surprise}: {result.test} ({word}): {self.log}:{self.lines}")
        if self.terminal:
            self._draw()
        elif self.clock() - self.last_printed >= self.interval:
            self._print(self.status())
            self.shown_done = self.done

    def finish(self) -> None:
        if self.terminal:
            if self.drawn:
                self.out.write("\n")
                self.out.flush()
                self.drawn = 0
        elif self.done != self.shown_done:  # the last plain line may say it already
            self._print(self.status())

    def status(self) -> str:
        elapsed = self.clock() - self.started
        total = "?" if self.total is None else str(self.total)
        eta = ""
        if self.done and self.total and self.done < self.total:
            eta = f", ETA {_duration(elapsed / self.done * (self.total - self.done))}"
        counts = ", ".join(f"{self.counts[word]} {word}" for word in RESULTS.values() if word in self.counts)
        surprises = f"; {self.surprises} unexpected" if self.surprises else ""
        return (f"   tests {self.done}/{total}, {_duration(elapsed)}{eta}"
                + (f": {counts}" if counts else "") + surprises + f" [{self.running}]")

    def _draw(self) -> None:
        text = self.status()
        self.out.write("\r" + text + " " * max(0, self.drawn - len(text)))
        self.out.flush()
        self.drawn = len(text)

    def _print(self, text: str) -> None:
        """A line of its own; on a terminal it replaces the status line, drawn again after it."""
        if self.terminal and self.drawn:
            self.out.write("\r" + " " * self.drawn + "\r")
            self.drawn = 0
        self.out.write(text + "\n")
        self.out.flush()
        self.last_printed = self.clock()
