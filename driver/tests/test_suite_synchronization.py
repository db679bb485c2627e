"""The battery (and the adapter kit its wrappers share) synchronizes its own threads with
support/atomic_sync.hpp, never with the standard library's latch, barrier, call_once or
semaphores: part of their synchronization can live in a compiled runtime that is not built
for ThreadSanitizer (Debian's libc++.a), where TSan misses the happens-before edge they
provide and reports false races (issue 23). A text scan of suite/ and adapters/kit/
(comments left out, so the reasons may still name them).
Run: /usr/bin/python3 -m pytest driver/tests/test_suite_synchronization.py
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h"}
SCANNED = ("suite", "adapters/kit")
RUNTIME_SYNCHRONIZATION = re.compile(
    r"\bstd::(latch|barrier|call_once|once_flag|counting_semaphore|binary_semaphore)\b"
    r"|#\s*include\s*<(latch|barrier|semaphore)>")


def code_lines(path: Path):
    """(line number, text) of each line, without its // comment."""
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        yield number, line.split("//", 1)[0]


def test_suite_uses_no_runtime_synchronization_primitive():
    sources = [p for folder in SCANNED for p in sorted((ROOT / folder).rglob("*"))
               if p.suffix in SOURCE_SUFFIXES]
    assert sources, "found no suite sources: the scan is broken"
    violations = [f"{path.relative_to(ROOT)}:{number}: {m[0]}"
                  for path in sources for number, code in code_lines(path)
                  for m in [RUNTIME_SYNCHRONIZATION.search(code)] if m]
    assert not violations, ("the suite synchronizes with a standard primitive; use "
                            "support/atomic_sync.hpp (atomic_latch, atomic_barrier):\n"
                            + "\n".join(violations))
