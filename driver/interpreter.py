"""Runs the driver under Debian's python3, which has python3-jinja2 and python3-pytest.

`./conformance` may be started by any python3 on PATH (pyenv's, a virtualenv's). The reports
need Jinja2: when the running interpreter lacks it, the packages are installed (as root, with
one line on the console) and the driver re-executes itself under /usr/bin/python3. Only the
standard library is used here: this runs before anything else is imported."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

DEBIAN_PYTHON = "/usr/bin/python3"
REEXEC_MARK = "SAFERECL_DRIVER_REEXEC"  # set across the exec: never loop


def _has(python: str, modules: str) -> bool:
    probe = subprocess.run([python, "-c", f"import {modules}"], capture_output=True)
    return probe.returncode == 0


def _install_python_packages() -> bool:
    """Installs them as root (one console line: driver/environment.py); False otherwise."""
    if os.geteuid() != 0:
        return False
    from driver.environment import PYTHON_PACKAGES, ensure_packages  # stdlib-only modules
    from driver.errors import EnvironmentProblem
    try:
        ensure_packages(PYTHON_PACKAGES)
    except EnvironmentProblem as problem:
        sys.stderr.write(f"conformance: {problem}\n")
        return False
    return True


def ensure_interpreter(script: str) -> None:
    """Returns when this interpreter can import jinja2 and pytest; otherwise replaces the process with
    Debian's python3 running `script` with the same arguments, or exits 3 saying what to
    install."""
    if all(importlib.util.find_spec(m) is not None for m in ("jinja2", "pytest")):
        # The mark guards one exec only: a ./conformance started from here (the console
        # check runs one in tmux, whose server inherits this environment) must be free to
        # re-execute itself in turn.
        os.environ.pop(REEXEC_MARK, None)
        return
    if os.environ.get(REEXEC_MARK) != "1" and os.path.exists(DEBIAN_PYTHON):
        if _has(DEBIAN_PYTHON, "jinja2, pytest") or _install_python_packages():
            os.environ[REEXEC_MARK] = "1"
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, script, *sys.argv[1:]])
    sys.stderr.write("conformance: the reports need Jinja2 and the tests pytest: install Debian's "
                     "python3-jinja2 and python3-pytest\n  sudo apt-get install python3-jinja2 "
                     "python3-pytest\nand run ./conformance with /usr/bin/python3\n")
    sys.exit(3)
