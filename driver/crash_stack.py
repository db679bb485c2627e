"""A crash whose output has no stack gets one: the test is run again, once, under gdb.

reports/crash_stacks.py says which crashes need it (a sanitizer's deadly signal with no frame
printed, typically a crash inside the sanitizer's own runtime) and how the reports name
them. This module runs the test's own CTest command (ctest --show-only=json-v1: the launcher,
the executable, its --test-case filter and the test's ENVIRONMENT) under `gdb -batch`, with
the run's environment (same seed), stopping at the first SIGSEGV/SIGBUS/SIGILL/SIGFPE/SIGABRT
and printing the backtrace. gdb is Debian's (installed on demand); a rerun that does not
crash again says so ("reproduced": false).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from driver.environment import ensure_packages
from reports import crash_stacks, protocol
from reports.classify import classify
from reports.junit import read_junit

MAX_RERUNS = 3  # a run with more such crashes gets stacks for the first three
RERUN_TIMEOUT = 180  # seconds


def ctest_commands(build_dir: Path, names: list[str]) -> dict[str, dict]:
    """name -> {"command": [...], "environment": [...], "directory": ...} from CTest itself."""
    shown = subprocess.run(["ctest", "--test-dir", str(build_dir), "--show-only=json-v1"],
                           capture_output=True, text=True)
    if shown.returncode != 0:
        return {}
    found = {}
    for test in json.loads(shown.stdout).get("tests", []):
        if test.get("name") in names:
            props = {p["name"]: p["value"] for p in test.get("properties", [])}
            found[test["name"]] = {"command": test.get("command", []),
                                   "environment": props.get("ENVIRONMENT", []),
                                   "directory": props.get("WORKING_DIRECTORY")}
    return found


def gdb_stack(command: list[str], env: dict[str, str], cwd: str | None) -> tuple[list[str], str]:
    """(backtrace frame lines, gdb's whole output) of the command run once under gdb."""
    # The launcher (run_test.sh) only reports the status: gdb runs the executable itself.
    if command and command[0].endswith("run_test.sh"):
        command = command[1:]
    args = ["gdb", "-q", "-batch", "-nx", "-ex", "set disable-randomization off", "-ex", "set confirm off",
            *(arg for sig in ("SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT")
              for arg in ("-ex", f"handle {sig} stop nopass")),
            "-ex", "handle SIGPIPE nostop noprint pass", "-ex", "run", "-ex", "bt 40", "--args", *command]
    try:
        done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, errors="replace",
                              timeout=RERUN_TIMEOUT)
        output = done.stdout + done.stderr
    except subprocess.TimeoutExpired as e:
        output = (e.stdout or "") + (e.stderr or "") if isinstance(e.stdout, str) else ""
        output += f"\n[saferecl] the rerun under gdb took longer than {RERUN_TIMEOUT} s\n"
    stack = [line for line in output.splitlines() if re.match(r"^#\d+\s", line)]
    return stack, output


def collect(junit: Path, build_dir: Path, env: dict[str, str], report_dir: Path, outputs: str) -> dict:
    """Reruns the crashed tests whose output has no stack (at most MAX_RERUNS) and writes
    crash-stacks.json into `report_dir` (with each gdb output under `outputs/`)."""
    if not junit.is_file():
        return {}
    needing = [case.name for case in read_junit(junit).cases
               if classify(case).verdict in (protocol.VERDICT_CRASH, protocol.VERDICT_FAIL)
               and crash_stacks.needs_stack(case.output)][:MAX_RERUNS]
    if not needing:
        return {}
    if shutil.which("gdb") is None:
        ensure_packages(["gdb"])
    if shutil.which("gdb") is None:
        return {}
    found = {}
    commands = ctest_commands(build_dir, needing)
    (report_dir / outputs).mkdir(parents=True, exist_ok=True)
    for name in needing:
        test = commands.get(name)
        if not test:
            continue
        test_env = dict(env)
        for assignment in test["environment"]:
            key, _, value = assignment.partition("=")
            test_env[key] = value
        stack, output = gdb_stack(test["command"], test_env, test["directory"])
        file_name = f"{outputs}/" + re.sub(r"[^A-Za-z0-9._=-]+", "_", name)[:120].strip("_") + ".gdb.txt"
        (report_dir / file_name).write_text(output, encoding="utf-8")
        found[name] = {"stack": stack, "file": file_name, "reproduced": bool(stack),
                       "command": test["command"]}
    (report_dir / crash_stacks.STACKS_FILE).write_text(json.dumps(found, indent=1) + "\n")
    return found
