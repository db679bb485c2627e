"""Progress lines on stdout, flushed at once so that CI logs interleave correctly with the
output of the CMake and CTest processes the driver starts."""

import time


def say(message: str) -> None:
    print(message, flush=True)


def stage(title: str) -> None:
    say(f"\n== {title}")


def elapsed(since: float) -> str:
    """Seconds since `since` (a time.monotonic() value), as "12.3 s"."""
    return f"{time.monotonic() - since:.1f} s"
