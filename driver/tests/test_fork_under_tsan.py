"""The test environment lets a forked child of a multi-threaded process start threads under
TSan (TSAN_OPTIONS die_after_fork=0, driver/ctest.py): without it TSan ends such a child
with exit 66, its own limit, and a correct <rcu> that restarts a worker in the child (RS-18)
failed on the tool's word. Compiled and run here: the child runs, and exits 0."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from driver import ctest

CHILD_STARTS_A_THREAD = r"""
#include <atomic>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>
int main() {
  std::atomic<bool> stop{false};
  std::thread busy([&] { while (!stop.load()) std::this_thread::yield(); });
  pid_t pid = fork();
  if (pid == 0) {
    int v = 0;
    std::thread t([&] { v = 42; });
    t.join();
    _exit(v == 42 ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  stop = true;
  busy.join();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
"""


def test_a_forked_child_may_start_threads_under_tsan(tmp_path: Path):
    compiler = shutil.which("clang++")
    if compiler is None:
        pytest.skip("no clang++")
    (tmp_path / "fork.cpp").write_text(CHILD_STARTS_A_THREAD)
    subprocess.run([compiler, "-fsanitize=thread", "-O1", "-g", "-pthread", str(tmp_path / "fork.cpp"),
                    "-o", str(tmp_path / "fork")], check=True)
    # The suite's defaults, not the caller's TSAN_OPTIONS.
    env = {k: v for k, v in os.environ.items() if k != "TSAN_OPTIONS"}
    env["TSAN_OPTIONS"] = ctest.sanitizer_options()["TSAN_OPTIONS"]
    ran = subprocess.run([str(tmp_path / "fork")], env=env, capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert "after multi-threaded fork is not supported" not in ran.stderr
