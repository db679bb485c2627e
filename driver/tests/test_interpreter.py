"""driver/interpreter.py: the re-execution mark does not leak into programs the driver starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_reexec_mark_is_dropped_once_the_interpreter_is_right():
    # A nested ./conformance (e.g. the console check's, in tmux) that inherited the mark
    # could not re-execute itself under Debian's python3 and would exit 3.
    program = ("import os, sys; sys.path.insert(0, sys.argv[1]); "
               "from driver.interpreter import ensure_interpreter, REEXEC_MARK; "
               "ensure_interpreter('unused'); print(os.environ.get(REEXEC_MARK))")
    env = dict(os.environ, SAFERECL_DRIVER_REEXEC="1")
    got = subprocess.run([sys.executable, "-c", program, str(ROOT)], env=env,
                         capture_output=True, text=True, check=True)
    assert got.stdout.strip() == "None"
