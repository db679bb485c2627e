"""A crash inside ThreadSanitizer's runtime that printed no stack gets one: the driver reruns
the CTest test under gdb (driver/crash_stack.py). Here a real one: a pthread key destructor
that keeps re-arming itself runs after TSan finished the thread, TSan crashes in
__tsan::TraceSwitchPart and its signal handler in turn ("nested bug", no frame; clang 14)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from driver import crash_stack
from reports import crash_stacks

LATE_DESTRUCTOR = r"""
#include <pthread.h>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
static pthread_key_t key;
static std::atomic<int> sink;
static void destroy(void* p) {
  long round = (long)p;
  int* q = (int*)malloc(64);
  memset(q, 0, 64);
  sink.fetch_add(q[1]);
  free(q);
  if (round < 6) pthread_setspecific(key, (void*)(round + 1));
}
int main() {
  pthread_key_create(&key, destroy);
  for (int i = 0; i < 4; ++i) {
    std::thread t([] { pthread_setspecific(key, (void*)1); });
    t.join();
  }
}
"""
CMAKE = """cmake_minimum_required(VERSION 3.20)
project(crash CXX)
enable_testing()
add_executable(late late.cpp)
target_compile_options(late PRIVATE -fsanitize=thread -O1 -g)
target_link_options(late PRIVATE -fsanitize=thread -pthread)
add_test(NAME reference/late COMMAND {launcher} $<TARGET_FILE:late>)
"""
LAUNCHER = Path(__file__).resolve().parents[2] / "suite" / "cmake" / "run_test.sh"


def test_a_crash_inside_tsan_gets_its_symbolized_stack(tmp_path: Path):
    if shutil.which("clang++") is None or shutil.which("gdb") is None:
        pytest.skip("needs clang++ and gdb")
    (tmp_path / "late.cpp").write_text(LATE_DESTRUCTOR)
    (tmp_path / "CMakeLists.txt").write_text(CMAKE.format(launcher=LAUNCHER))
    build = tmp_path / "build"
    subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(build), "-DCMAKE_CXX_COMPILER=clang++"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    junit = tmp_path / "junit.xml"
    subprocess.run(["ctest", "--test-dir", str(build), "--output-junit", str(junit)], capture_output=True)
    output = junit.read_text()
    assert crash_stacks.needs_stack(output), output  # TSan printed no frame
    report = tmp_path / "report"
    report.mkdir()
    found = crash_stack.collect(junit, build, {"PATH": "/usr/bin:/bin"}, report, "outputs")
    stack = found["reference/late"]["stack"]
    named = crash_stacks.describe(stack)
    assert named.startswith("crash inside ThreadSanitizer's runtime (__tsan::"), stack
    assert "called from destroy" in named and "pthread key destructors" in named, named
    written = json.loads((report / "crash-stacks.json").read_text())
    assert (report / written["reference/late"]["file"]).is_file()
