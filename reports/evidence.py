"""Whether a test's failure is evidence its tier's tool could see: a classification
(reports/classify.py) reclassified by each sanitizer's limits.

- ThreadSanitizer: races through an uninstrumented runtime, and its refusal to start threads
  in a forked child (reports/tsan_evidence.py).
- AddressSanitizer: **a forked child that hangs**. clang 14's ASan allocator registers no
  fork handler: a child forked while another thread of the parent held one of the
  allocator's locks (any thread that was allocating or freeing at that instant) inherits the
  lock held, by a thread the child does not have, and its first allocation that needs it
  blocks for ever, whatever the implementation does (seen with gdb: an <rcu> whose child
  restarts its callback thread, blocked in ASan's allocator, 11 of 12 runs; glibc's malloc
  takes its locks around fork, so the same child runs in the none tier). So under ASan a
  forked child that made no progress is INCONCLUSIVE; the none tier, which runs the same
  test, still judges the hang.
"""

from __future__ import annotations

from dataclasses import replace

from reports import protocol, tsan_evidence
from reports.classify import Classification

CHILD_HANG_DETAIL = ("a forked child made no progress under ASan, whose allocator (clang 14) takes no "
                     "lock around fork: the child may hold an allocator lock another thread of the "
                     "parent had, whatever the implementation does; the none tier judges the same test")


def asan_child_hang(c: Classification, output: str, sanitizer: str | None) -> Classification:
    """An ASan tier's TIMEOUT of a forked child (the TIMEOUT prefix and FORKED_CHILD_MARK)
    becomes INCONCLUSIVE; every other classification stays as it is."""
    if sanitizer != "asan" or c.verdict != protocol.VERDICT_TIMEOUT:
        return c
    if protocol.TIMEOUT_PREFIX + protocol.FORKED_CHILD_MARK not in output:
        return c
    return replace(c, verdict=protocol.VERDICT_INCONCLUSIVE, detail=CHILD_HANG_DETAIL)


def reclassify(c: Classification, output: str, sanitizer: str | None, runtime: dict | None) -> Classification:
    """The classification `c` of a test's output in a tier, with the tier's tool's limits applied."""
    return asan_child_hang(tsan_evidence.reclassify(c, output, sanitizer, runtime), output, sanitizer)
