"""What the driver prints: progress lines on stdout, flushed at once so that CI logs
interleave correctly with the output of the CMake and CTest processes the driver starts,
and the test phase's one progress line (Progress).

The console has three levels (`-q`, default, `-v`): quiet prints only the end of a command
(`conclude`), the default adds the stages and a progress line per test phase with one line
per unexpected result, verbose prints CTest's whole stream as it comes instead of the
progress line. Whatever the level, the stream itself is kept in the report directory."""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable, TextIO

QUIET, NORMAL, VERBOSE = "quiet", "normal", "verbose"
_level = NORMAL


def set_level(level: str) -> None:
    global _level
    _level = level


def level() -> str:
    return _level


def say(message: str) -> None:
    """A line of the command's progress (not under -q)."""
    if _level != QUIET:
        print(message, flush=True)


def conclude(message: str) -> None:
    """A line of the command's end (the summary, the paths): printed at every level."""
    print(message, flush=True)


def stage(title: str) -> None:
    say(f"\n== {title}")


class OpenLine:
    """A line printed in two halves: what starts now, and later how it ended (begin_line)."""

    def __init__(self, shown: bool):
        self.shown = shown

    def end(self, outcome: str) -> None:
        if self.shown:
            print(f" {outcome}", flush=True)


def begin_line(message: str) -> OpenLine:
    """The first half of a one-line step (a package installation): `message` now, its outcome
    on the same line when `.end(outcome)` is called (not under -q)."""
    if _level != QUIET:
        print(message, end="", flush=True)
    return OpenLine(_level != QUIET)


def detail(log: Path, line: str) -> None:
    """A line of a phase's detail (a mutant's kills, a benchmark case's medians): appended to
    `log` in the report directory, and printed too under -v (the stream as it was before the
    progress line)."""
    with log.open("a", encoding="utf-8") as f:
        f.write(line + "\n")
    if _level == VERBOSE:
        print(line, flush=True)


def progress(what: str, total: int = 0) -> Progress | None:
    """The progress line of a phase of `total` items, at the default level only (-v shows the
    stream, -q nothing)."""
    return Progress(what, total=total) if _level == NORMAL else None


def elapsed(since: float) -> str:
    """Seconds since `since` (a time.monotonic() value), as "12.3 s"."""
    return f"{time.monotonic() - since:.1f} s"


def clock_text(seconds: float) -> str:
    """12 -> "0:12", 754 -> "12:34", 3725 -> "1:02:05"."""
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    """One progress line for a phase of many items (tests, mutants, benchmark cases): done of
    total, elapsed time, an ETA from the mean pace so far, counts by verdict and what is
    running. On a terminal the line is redrawn in place; elsewhere (a CI log) it is printed
    as a plain line at most every `interval` seconds and once at the end. An unexpected result
    gets a line of its own at once, above the progress line; expected ones are only counted."""

    def __init__(self, what: str = "tests", out: TextIO | None = None, tty: bool | None = None,
                 interval: float = 10.0, clock: Callable[[], float] = time.monotonic, total: int = 0):
        self.what = what
        self.out = out if out is not None else sys.stdout
        self.tty = self.out.isatty() if tty is None else tty
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.last_plain: float | None = None
        self.plain_shown: tuple = ()  # shown() as of the last plain line
        self.done = 0
        self.total = total
        self.running = ""
        self.counts: Counter[str] = Counter()
        self.unexpected_count = 0
        self.drawn = False  # a progress line is on the terminal's last row

    def line(self) -> str:
        spent = self.clock() - self.started
        text = f"[{self.done}/{self.total or '?'} {self.what}] {clock_text(spent)}"
        if 0 < self.done < self.total:
            text += f", ETA {clock_text(spent / self.done * (self.total - self.done))}"
        if self.counts:
            text += " | " + ", ".join(f"{verdict} {n}" for verdict, n in sorted(self.counts.items()))
        if self.unexpected_count:
            text += f" | UNEXPECTED {self.unexpected_count}"
        if self.running:
            text += f" | {self.running}"
        return text

    def shown(self) -> tuple:
        """What the line says, but for the time."""
        return self.done, self.total, self.running, tuple(sorted(self.counts.items()))

    def _write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def _draw(self, force: bool = False) -> None:
        if self.tty:
            self._write("\r" + self.line() + "\x1b[K")
            self.drawn = True
            return
        now = self.clock()
        if force or self.last_plain is None or now - self.last_plain >= self.interval:
            self.last_plain, self.plain_shown = now, self.shown()
            self._write(self.line() + "\n")

    def begin(self, total: int = 0, running: str = "") -> None:
        self.total, self.running = total or self.total, running or self.running
        self._draw()

    def started_item(self, running: str) -> None:
        """Something (an implementation's test, a mutant) has started: the line names it."""
        if running != self.running:
            self.running = running
            self._draw()

    def reached(self, done: int, total: int) -> None:
        """A phase that counts itself (ninja's [done/total]) has got this far."""
        self.done, self.total = done, total
        self._draw()

    def finished(self, verdict: str, total: int = 0, unexpected: str | None = None) -> None:
        """An item ended with `verdict`; `unexpected` is its line when nobody expected that."""
        self.done += 1
        self.total = max(total, self.total, self.done)
        self.counts[verdict] += 1
        if unexpected is not None:
            self.unexpected_count += 1
            self._write(("\r\x1b[K" if self.tty and self.drawn else "") + unexpected + "\n")
            self.drawn = False
        self._draw()

    def end(self) -> None:
        """The final line (also in a CI log), and the terminal's cursor back on a new line."""
        self.running = ""
        if self.tty:
            self._draw()
            self._write("\n")
            self.drawn = False
        elif self.last_plain is None or self.shown() != self.plain_shown:  # not the last line again
            self._draw(force=True)
