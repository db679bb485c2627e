"""A tier's failure is evidence only where its tool could see it (reports/evidence.py): under
ASan a forked child that hangs may hang in ASan's own allocator, so it is not judged there."""

from __future__ import annotations

import pytest

from reports import protocol
from reports.classify import CaseRecord, classify
from reports.evidence import reclassify

CHILD_HANG = ("[saferecl] TIMEOUT: forked child 4242 made no progress for 1500 ms of the time it could run "
              "(1512 ms of wall time): killed\n[saferecl] evidence (the child's threads):\n"
              "  4242 (fork.pass): S, futex_wait_queue\n[saferecl] exit status 124\n")
WATCHDOG_HANG = ("[saferecl] TIMEOUT: watchdog: 'rcu_barrier' made no progress for 3000 ms of the time it "
                 "could run\n[saferecl] exit status 124\n")


def verdict(output: str, sanitizer: str) -> str:
    return reclassify(classify(CaseRecord(name="t", status="fail", failed=True, output=output, time=2.0)),
                      output, sanitizer, None).verdict


def test_a_forked_child_that_hangs_under_asan_is_not_judged():
    assert verdict(CHILD_HANG, "asan") == protocol.VERDICT_INCONCLUSIVE


@pytest.mark.parametrize("sanitizer", ["none", "tsan", "tso"])
def test_the_same_hang_is_a_timeout_in_the_other_tiers(sanitizer):
    assert verdict(CHILD_HANG, sanitizer) == protocol.VERDICT_TIMEOUT


def test_a_hang_of_the_test_process_itself_stays_a_timeout_under_asan():
    assert verdict(WATCHDOG_HANG, "asan") == protocol.VERDICT_TIMEOUT
