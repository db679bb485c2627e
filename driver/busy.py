"""A busy machine, on purpose: processes that spin at normal priority beside the tests, as the
other jobs of a shared CI runner do. Verdicts must not change with them (the watchdog and the
stall detector judge the time a test could run: suite/support/liveness.hpp); `run` and
`mutants` take `--busy N`, and `./conformance test` checks the liveness-sensitive tests under
4 spinners per core.

A spinner stops by itself when its parent is gone, so a driver killed half-way leaves no
load behind."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from typing import Iterator

# Spins until its parent (the driver) is gone.
SPINNER = "import os\nparent = os.getppid()\nwhile os.getppid() == parent:\n    pass\n"


def load_average() -> tuple[float, float, float]:
    one, five, fifteen = os.getloadavg()
    return round(one, 2), round(five, 2), round(fifteen, 2)


@contextmanager
def busy_machine(processes: int) -> Iterator[list[subprocess.Popen]]:
    """`processes` spinning processes for the duration of the block (none for 0)."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPINNER], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for _ in range(max(0, processes))]
    try:
        yield spinners
    finally:
        for spinner in spinners:
            spinner.kill()
        for spinner in spinners:
            spinner.wait()
