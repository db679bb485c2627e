"""Every call a stress test's main thread makes into the implementation after its workers
joined runs inside a named step (`t.settle("what", ...)`, a watchdog scope), so that a hang or
a livelock there is a TIMEOUT that names the step within the watchdog's limit (issue 50: a
retire after the join once spun until CTest's timeout, 3 x 300 s). The gap watch of
support/watchdog.hpp ends such a hang anyway; this scan keeps the step's name in the report.

A text scan of suite/stress/: from a torture's `.join(` to the end of the function, with the
arguments of every `settle(`/`within_watchdog(` call, string literals and comments left out, no line may
call into the implementation (IMPLEMENTATION_CALL).
Run: /usr/bin/python3 -m pytest driver/tests/test_stress_steps_watched.py
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STRESS = ROOT / "suite" / "stress"
# What reaches the implementation from a test's main thread: its API, and the test helpers and
# containers that call it (a list's clear() retires its nodes, a queue's drain() retires them).
IMPLEMENTATION_CALL = re.compile(
    r"\bsut::|\bretire\s*\(|\brcu_barrier\s*\(|\brcu_synchronize\s*\(|\bchurn\s*\(|"
    r"\bmake_hazard_pointer\s*\(|\breset_protection\s*\(|\bprotect\s*\(|"
    r"\.(clear|drain|lock|unlock)\s*\(")
JOIN = re.compile(r"\bt\.join\s*\(")
WATCHED_CALL = re.compile(r"\b(settle|within_watchdog)\s*\(")


def code_only(text: str) -> str:
    """The text without string literals' contents and comments, lines kept in place."""
    text = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m[0]), text, flags=re.S)
    return "\n".join(line.split("//", 1)[0] for line in text.split("\n"))


def matching(text: str, start: int, open_: str, close: str) -> int:
    """The index just past the bracket that closes the one at `start`."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def function_end(text: str, at: int) -> int:
    """The index of the brace that closes the block enclosing `at`."""
    depth = 0
    for i in range(at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            if depth == 0:
                return i
            depth -= 1
    return len(text)


def unwatched_calls(source: str) -> list[tuple[int, str]]:
    """(line, code) of each implementation call after a join, outside every watched step."""
    text = code_only(source)
    found = []
    for join in JOIN.finditer(text):
        end = function_end(text, join.end())
        region = list(text[join.start():end])
        for call in WATCHED_CALL.finditer(text, join.start(), end):
            paren = call.end() - 1
            for i in range(paren, min(matching(text, paren, "(", ")"), end)):
                if region[i - join.start()] != "\n":
                    region[i - join.start()] = " "
        first_line = text.count("\n", 0, join.start()) + 1
        for offset, line in enumerate("".join(region).split("\n")):
            if IMPLEMENTATION_CALL.search(line):
                found.append((first_line + offset, line.strip()))
    return sorted(set(found))


def test_the_scan_flags_an_unwatched_call_and_spares_a_watched_one():
    planted = """
void body(torture& t, thread_group& group) {
  t.join(group);
  t.settle("retiring the last object", [&] { last->retire(); });  // watched
  first->retire();  // planted: no step covers it
  t.settle("final rcu_barrier", [] {
    sut::rcu_barrier();
  });
}
"""
    assert unwatched_calls(planted) == [(5, "first->retire();")]


def test_every_call_after_the_join_of_a_stress_test_is_in_a_named_step():
    sources = sorted(STRESS.glob("*.cpp"))
    assert sources, "found no stress tests: the scan is broken"
    joined = [p for p in sources if JOIN.search(p.read_text())]
    assert len(joined) >= len(sources) // 2, "few stress tests join a torture: the scan is broken"
    violations = [f"{path.relative_to(ROOT)}:{line}: {code}"
                  for path in joined for line, code in unwatched_calls(path.read_text())]
    assert not violations, ("calls into the implementation after the workers joined, outside "
                            "every named step; wrap them in t.settle(\"what\", [&] { ... }):\n"
                            + "\n".join(violations))
