"""driver/tree_lock.py: a second command waits for the one using a build tree, says so, and
then goes on; a command's own children pass; the same process may ask twice.

Each side runs in a process of its own (the lock is the process's, as it is for a command).
Run: /usr/bin/python3 -m pytest driver/tests/test_tree_lock.py
"""
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Holds the tree given as argv[1], says "held", keeps it argv[2] seconds (0: exits at once),
# and, with argv[3], runs that Python code in a child that inherits the environment.
HOLDER = """
import subprocess, sys, time
from pathlib import Path
from driver import tree_lock
tree_lock.hold(Path(sys.argv[1]))
tree_lock.hold(Path(sys.argv[1]))  # twice in one process: no wait
print("held", flush=True)
if len(sys.argv) > 3:
    sys.exit(subprocess.run([sys.executable, "-c", sys.argv[3], sys.argv[1]], timeout=10).returncode)
time.sleep(float(sys.argv[2]))
"""


def holder(tree: Path, seconds: float, *child: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "SAFERECL_HELD_TREES"}
    return subprocess.Popen([sys.executable, "-c", HOLDER, str(tree), str(seconds), *child],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)


def test_a_second_command_waits_for_the_first_and_says_so(tmp_path):
    first = holder(tmp_path, 1.5)
    assert first.stdout.readline().strip() == "held"
    started = time.monotonic()
    second = holder(tmp_path, 0)
    out, _ = second.communicate(timeout=20)
    waited = time.monotonic() - started
    first.wait(timeout=20)
    assert "waiting for" in out and f"pid {first.pid}" in out, out
    assert out.strip().endswith("held"), out
    assert waited >= 1.0, f"the second command went on after {waited:.2f} s, beside the first"


def test_a_commands_child_uses_the_trees_its_parent_holds(tmp_path):
    child = "import sys; from pathlib import Path; from driver import tree_lock; " \
            "tree_lock.hold(Path(sys.argv[1])); print('child went on', flush=True)"
    parent = holder(tmp_path, 0, child)
    out, _ = parent.communicate(timeout=20)
    assert parent.returncode == 0 and "child went on" in out and "waiting" not in out, out
