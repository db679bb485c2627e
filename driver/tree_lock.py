"""One ./conformance command at a time per build tree.

Two commands that share a checkout share its build trees (build/<tier>...): one would
reconfigure and rebuild a tree under the other's running tests, which then find no test
("NO TEST RAN") or run a half-built executable. So a command holds an exclusive lock on each
tree it configures until it exits, and a second command waits for the first, saying so.

The lock is flock(2) on build/<tree>/.saferecl-lock, released by the kernel when the process
ends however it ends. A command's child processes (pytest under ./conformance test, which runs
commands of its own) inherit the trees their parent holds through SAFERECL_HELD_TREES and do not
lock them again: the parent waits for them, so they cannot collide with it, and locking would
make them wait for their own parent forever.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from driver.console import say
from driver.paths import ROOT

HELD_TREES = "SAFERECL_HELD_TREES"
LOCK_FILE = ".saferecl-lock"

_held: dict[Path, int] = {}  # tree -> the descriptor that holds its lock (kept open)


def held_by_ancestor(tree: Path) -> bool:
    return str(tree) in os.environ.get(HELD_TREES, "").split(os.pathsep)


def hold(tree: Path) -> None:
    """Takes `tree`'s lock for the rest of this process, waiting for another command that
    holds it; nothing if this process or its parent already holds it."""
    tree = tree.resolve()
    if tree in _held or held_by_ancestor(tree):
        return
    tree.mkdir(parents=True, exist_ok=True)
    fd = os.open(tree / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
        say(f"   waiting for {tree.relative_to(ROOT) if tree.is_relative_to(ROOT) else tree}: "
            f"another ./conformance command (pid {holder}) is using it")
        fcntl.flock(fd, fcntl.LOCK_EX)
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    _held[tree] = fd
    os.environ[HELD_TREES] = os.pathsep.join(
        p for p in (os.environ.get(HELD_TREES, ""), str(tree)) if p)
