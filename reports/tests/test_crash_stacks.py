"""A crash inside a sanitizer's runtime is named as such, with the symbolized stack of its
rerun under gdb (reports/crash_stacks.py, crash-stacks.json written by driver/crash_stack.py)."""

from __future__ import annotations

import json
from pathlib import Path

from reports import crash_stacks, write_reports

# What ThreadSanitizer printed when it crashed in a late pthread key destructor round (clang
# 14; the H36): no frame at all.
NESTED_BUG = """[saferecl] saferecl.hp.holder.general/1 H36: seed=5
ThreadSanitizer:DEADLYSIGNAL
==14668==ERROR: ThreadSanitizer: SEGV on unknown address 0x0000000000d0 (pc 0x5624eaff842b bp 0x7f1d01913a98 sp 0x7f1cfe1fd698 T14670)
==14668==The signal is caused by a READ memory access.
==14668==Hint: address points to the zero page.
ThreadSanitizer:DEADLYSIGNAL
ThreadSanitizer: nested bug in the same thread, aborting.
[saferecl] exit status 66
"""
# gdb's backtrace of the same program.
GDB_STACK = [
    "#0  0x0000564619e6b42b in __tsan::TraceSwitchPart(__tsan::ThreadState*) ()",
    "#1  0x0000564619e6d8b2 in __tsan::TraceRestartFuncEntry(__tsan::ThreadState*, unsigned long) ()",
    "#2  0x0000564619e87481 in destroy (p=0x4) at k.cpp:8",
    "#3  0x00007fa982bc44d1 in __GI___nptl_deallocate_tsd () at ./nptl/nptl_deallocate_tsd.c:73",
    "#4  __GI___nptl_deallocate_tsd () at ./nptl/nptl_deallocate_tsd.c:22",
    "#5  0x00007fa982bc7035 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:453",
]
NAME = "saferecl.hp.holder.general/1 H36: a thread's pthread key destructors may make hazard pointers"


def test_a_crash_without_frames_needs_a_stack_and_one_with_frames_does_not():
    assert crash_stacks.needs_stack(NESTED_BUG)
    assert not crash_stacks.needs_stack(NESTED_BUG + "    #0 0x1 in f x.cpp:3\n")
    assert not crash_stacks.needs_stack("[saferecl] exit status 1\n")


def test_the_stack_names_the_runtime_the_caller_and_the_moment():
    assert crash_stacks.describe(GDB_STACK) == (
        "crash inside ThreadSanitizer's runtime (__tsan::TraceSwitchPart), called from destroy "
        "(k.cpp:8), during thread exit's pthread key destructors")
    assert crash_stacks.describe(["#0  0x1 in f (x=1) at a.cpp:3", "#1  0x2 in main () at a.cpp:9"]) == \
        "crash in f (a.cpp:3)"


def report_dir(tmp_path: Path, stacks: dict | None) -> dict:
    (tmp_path / "junit.xml").write_text(
        f'<testsuite name="x"><testcase name="reference/{NAME}" time="0.5" status="fail">'
        f'<failure message="Failed"/><system-out>{NESTED_BUG}</system-out></testcase></testsuite>')
    (tmp_path / "implementations.json").write_text(json.dumps([{"name": "reference", "available": True}]))
    (tmp_path / "run.json").write_text(json.dumps({"seed": 5, "implementations": ["reference"],
                                                   "sanitizer": "tsan"}))
    if stacks is not None:
        (tmp_path / "crash-stacks.json").write_text(json.dumps(stacks))
    return write_reports(tmp_path)


def test_the_report_names_a_crash_inside_the_sanitizer_with_its_stack(tmp_path):
    results = report_dir(tmp_path, {f"reference/{NAME}": {"stack": GDB_STACK, "file": "outputs/h36.gdb.txt",
                                                          "reproduced": True}})
    t = results["tests"][0]
    assert t["verdict"] == "CRASH"
    assert t["detail"].startswith("crash inside ThreadSanitizer's runtime (__tsan::TraceSwitchPart)"), t["detail"]
    assert "outputs/h36.gdb.txt" in t["detail"] and "called from destroy (k.cpp:8)" in t["headline"]
    assert GDB_STACK[0] in t["output_excerpt"]
    assert "inside ThreadSanitizer's runtime" in (tmp_path / "summary.md").read_text()


def test_without_a_rerun_the_crash_stays_a_deadly_signal(tmp_path):
    t = report_dir(tmp_path, None)["tests"][0]
    assert t["verdict"] == "CRASH" and "inside" not in t["detail"]


def test_a_frame_in_an_anonymous_namespace_is_the_caller():
    stack = ["#0  0x000055a7c5fa668b in __tsan::TraceSwitchPart(__tsan::ThreadState*) ()",
             "#1  0x000055a7c5fa8b12 in __tsan::TraceRestartFuncEntry(__tsan::ThreadState*, unsigned long) ()",
             "#2  0x000055a7c5fc2a61 in (anonymous namespace)::late (p=0x4) at /x/zz_tsan_crash.pass.cpp:17",
             "#3  0x00007fa70f9c44d1 in __GI___nptl_deallocate_tsd () at ./nptl/nptl_deallocate_tsd.c:73"]
    assert crash_stacks.describe(stack) == (
        "crash inside ThreadSanitizer's runtime (__tsan::TraceSwitchPart), called from "
        "(anonymous namespace)::late (zz_tsan_crash.pass.cpp:17), during thread exit's pthread key destructors")
