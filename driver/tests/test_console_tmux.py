"""A real short `./conformance run` in a terminal (a tmux pane), its screen read back with
capture-pane: what a user sees is the build's lines, one progress line (redrawn in place, so
it is one row of the screen), no CTest stream, and the end's summary and paths.

It relies on tmux (installed through the driver's package mechanism when root, else the check
is skipped with the reason) and on a tsan build tree that already holds the reference's tests
(the check reads a run's screen; it does not pay for a whole build: without the tree it is
skipped)."""

import os
import shutil
import subprocess
import time
import uuid

import pytest

from driver.build import tree_dir
from driver.environment import CONSOLE_CHECK_PACKAGES, ensure_packages, missing_packages
from driver.paths import ROOT

ONE_TEST = "holder.mem/5 H31"  # one quick reference test (a few seconds under TSan)


def tmux_or_skip() -> str:
    if missing_packages(CONSOLE_CHECK_PACKAGES):
        if os.geteuid() != 0:
            pytest.skip("tmux is not installed and installing it needs root: "
                        "apt-get install tmux")
        ensure_packages(CONSOLE_CHECK_PACKAGES)
    return shutil.which("tmux") or pytest.skip("tmux is not on PATH")


def test_a_real_run_shows_a_progress_line_and_no_ctest_stream(tmp_path):
    tmux = tmux_or_skip()
    if not (tree_dir("tsan") / "CTestTestfile.cmake").is_file():
        pytest.skip(f"no tsan build tree in {tree_dir('tsan')} (run ./conformance run once)")
    session = f"saferecl-console-{uuid.uuid4().hex[:8]}"
    done = tmp_path / "exit-status"
    command = (f"cd {ROOT} && ./conformance run --impl reference --jobs 2 --out {tmp_path / 'out'} "
               f"-- -R '{ONE_TEST}'; echo $? > {done}; sleep 600")  # the pane stays to be read
    subprocess.run([tmux, "new-session", "-d", "-s", session, "-x", "200", "-y", "50", command],
                   check=True)
    try:
        deadline = time.monotonic() + 600
        while not done.exists() and time.monotonic() < deadline:
            time.sleep(1)
        screen = subprocess.run([tmux, "capture-pane", "-p", "-S", "-", "-t", session],
                                capture_output=True, text=True, check=True).stdout
    finally:
        subprocess.run([tmux, "kill-session", "-t", session], check=False)
    assert done.read_text().strip() == "0", screen
    rows = screen.splitlines()
    progress = [row for row in rows if row.startswith("[") and " tests]" in row]
    assert len(progress) == 1, screen  # redrawn in place: one row
    assert progress[0].startswith("[1/1 tests]") and "PASS 1" in progress[0], screen
    assert not any("Test #" in row or row.strip().startswith("Start ") for row in rows), screen
    assert any(row.startswith("reports: ") for row in rows), screen
    assert any(row.startswith("CTest's output: ") and row.endswith("ctest.log") for row in rows), screen
