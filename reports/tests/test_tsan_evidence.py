"""A TSan race report is evidence only when TSan could see the synchronization that would have
prevented it (reports/tsan_evidence.py): not through an uninstrumented, unannotated C++
runtime (a fence is no such thing: the battery's fence model never invents an edge's absence)."""

from __future__ import annotations

from reports import tsan_evidence
from reports.tsan_evidence import judge

BLIND = {"library": "libc++ 22.1.8", "instrumented": False, "annotations": False}
ANNOTATED = BLIND | {"instrumented": True, "annotations": True}


def race(first: list[str], second: list[str]) -> str:
    """A TSan data race report, as clang 22's runtime prints it (halt_on_error=1)."""
    frames = lambda stack: "".join(f"    #{n} {f}\n" for n, f in enumerate(stack))  # noqa: E731
    return ("==================\nWARNING: ThreadSanitizer: data race (pid=8623)\n"
            "  Read of size 4 at 0x556d470dc998 by thread T2:\n" + frames(first) + "\n"
            "  Previous write of size 4 at 0x556d470dc998 by thread T1:\n" + frames(second) + "\n"
            "  As if synchronized via sleep:\n    #0 nanosleep <null> (p+0x6d78a)\n"
            "    #1 std::__1::this_thread::sleep_for(std::__1::chrono::duration<long long> const&) <null> (p+0xf8aca)\n\n"
            "SUMMARY: ThreadSanitizer: data race /tmp/p.cpp:12:9 in main::$_1::operator()() const\n"
            "==================\n")


VENDOR_READ = ["std::__domain::cache() /vendor/include/hazard_pointer:88:5 (t+0x1)",
               "test_body() /suite/x.pass.cpp:12:9 (t+0x2)"]
THROUGH_CALL_ONCE = ["std::__domain::setup()::'lambda'()::operator()() const /vendor/include/hazard_pointer:80:5 (t+0x3)",
                     "void std::__1::__call_once_proxy<std::__1::tuple<>>(void*) /usr/include/c++/v1/__mutex/once_flag.h:113:3 (t+0x4)",
                     "std::__1::__call_once(unsigned long volatile&, void*, void (*)(void*)) <null> (t+0xf7b19)"]
IMPLEMENTATION_WRITE = ["std::__domain::retire() /vendor/src/hazard_pointer.cpp:140:3 (t+0x5)"]


def test_a_race_through_the_uninstrumented_runtime_is_not_evidence():
    verdict = judge(race(VENDOR_READ, THROUGH_CALL_ONCE), BLIND)
    assert not verdict.judged and "std::__1::__call_once" in verdict.reason and "not instrumented" in verdict.reason


def test_the_same_race_is_evidence_when_the_runtime_is_seen():
    assert judge(race(VENDOR_READ, THROUGH_CALL_ONCE), ANNOTATED).judged
    assert judge(race(VENDOR_READ, THROUGH_CALL_ONCE), {"library": "libc++ 22.1.8", "instrumented": True}).judged
    assert judge(race(VENDOR_READ, THROUGH_CALL_ONCE), None).judged


def test_a_race_with_both_stacks_in_the_implementation_stays_evidence():
    """Runtime frames elsewhere in the report (the sleep) do not count: only the accesses' stacks."""
    assert judge(race(VENDOR_READ, IMPLEMENTATION_WRITE), BLIND).judged


def test_a_race_in_a_process_whose_fence_model_widened_is_evidence():
    """The fence model is never narrower than C++ (suite/support/tsan/fences.cpp): where it
    widens it may hide a race, so a race it still reports is real."""
    output = ("[saferecl] TSan fence model widened: more remembered loads than the model keeps: the oldest "
              "was acquired at once, before its acquire fence\n" + race(VENDOR_READ, IMPLEMENTATION_WRITE))
    assert judge(output, None).judged
    assert judge(output, BLIND).judged


def test_other_evidence_in_the_same_output_keeps_the_failure():
    output = race(VENDOR_READ, THROUGH_CALL_ONCE) + "[doctest] Status: FAILURE!\n"
    assert judge(output, BLIND).judged
    assert judge("ERROR: AddressSanitizer: heap-use-after-free\n" + race(VENDOR_READ, THROUGH_CALL_ONCE), BLIND).judged


def test_an_output_without_a_race_is_judged():
    assert judge("WARNING: ThreadSanitizer: signal-unsafe call inside of a signal\n", BLIND).judged


FORK_CHILD_OUTPUT = """[saferecl] saferecl.rcu.general/1 RS-18: seed=1
==4242==ThreadSanitizer: starting new threads after multi-threaded fork is not supported. Dying (set die_after_fork=0 to override)
fork.pass.cpp:80: ERROR: CHECK( child_status == 0 ) is NOT correct!
  values: CHECK( 66 == 0 )
[doctest] Status: FAILURE!
[saferecl] exit status 1
"""


def test_a_child_ended_by_tsans_fork_limit_is_inconclusive_in_the_tsan_tier_only():
    from reports.classify import Classification
    failed = Classification("FAIL", "exit status 1", 1)
    tsan = tsan_evidence.reclassify(failed, FORK_CHILD_OUTPUT, "tsan", None)
    assert tsan.verdict == "INCONCLUSIVE" and "the tool's limit" in tsan.detail
    assert tsan_evidence.reclassify(failed, FORK_CHILD_OUTPUT, "asan", None).verdict == "FAIL"
    hang = Classification("TIMEOUT", "watchdog timeout", 124)
    assert tsan_evidence.reclassify(hang, FORK_CHILD_OUTPUT, "tsan", None).verdict == "TIMEOUT"
    no_refusal = FORK_CHILD_OUTPUT.replace("starting new threads", "something else")
    assert tsan_evidence.reclassify(failed, no_refusal, "tsan", None).verdict == "FAIL"
