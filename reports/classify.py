"""Verdicts from CTest's records, and what the reports quote from a test's output.

A test's verdict comes from its junit <testcase> (status, <skipped>, <failure>, output), the
"[saferecl] exit status N" line that suite/cmake/run_test.sh prints, and the test's CTest
TIMEOUT (from the index). The order of the checks in `classify` is the protocol: a watchdog
timeout or a stall that other load starved (the wall-clock cap ended a window the process
could hardly run in: INCONCLUSIVE) outranks the rest, a timeout or a signal outranks the
sanitizer's exit status, and a missing status line means CTest killed the launcher (TIMEOUT)
or the output was truncated (FAIL).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reports import protocol
from reports.text import seconds, split_lines, trim


@dataclass
class CaseRecord:
    """One <testcase> of CTest's junit.xml, with the index's facts about the same test."""

    name: str = ""
    status: str = ""  # junit "status": run | fail | notrun | disabled
    skipped: bool = False  # has <skipped>
    skip_message: str = ""  # its message ("SKIP_RETURN_CODE=77", "Disabled", ...)
    failed: bool = False  # has <failure>
    output: str = ""  # <system-out>
    time: float = 0.0  # seconds
    kind: str = ""  # from the index: "compile-fail" runs through cmake -P and prints no status
    timeout: float | None = None  # the CTest TIMEOUT property, from the index


@dataclass
class Classification:
    verdict: str
    detail: str
    exit_status: int | None


EXIT_STATUS_LINE = re.compile(r"\[saferecl\] exit status (\d+)")
STARVED_LINE = re.compile(re.escape(protocol.STARVED_PREFIX) + r" ([^\n]*)")
DEADLY_SIGNAL = re.compile(r"Sanitizer:DEADLYSIGNAL|Sanitizer: (SEGV|BUS|FPE|ILL|ABRT|stack-overflow)")
SIGNAL_NAMES = {4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
                11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"}


def exit_status_of(output: str) -> int | None:
    """The last "[saferecl] exit status N" of an output."""
    found = EXIT_STATUS_LINE.findall(output)
    return int(found[-1]) if found else None


def signal_name(number: int) -> str:
    return SIGNAL_NAMES.get(number, f"signal {number}")


def classify(r: CaseRecord) -> Classification:
    exit_status = exit_status_of(r.output)

    def verdict(name: str, detail: str) -> Classification:
        return Classification(name, detail, exit_status)

    if r.skipped or r.status in ("notrun", "disabled"):
        if r.status == "disabled" or "Disabled" in r.skip_message:
            return verdict(protocol.VERDICT_NOT_APPLICABLE, "disabled in CTest")
        if "SKIP_RETURN_CODE" in r.skip_message or exit_status == protocol.NOT_APPLICABLE:
            return verdict(protocol.VERDICT_NOT_APPLICABLE,
                           f"exit status {protocol.NOT_APPLICABLE} (not applicable)")
        return verdict(protocol.VERDICT_NOT_BUILT,
                       "CTest could not run it" + (f": {r.skip_message}" if r.skip_message else ""))
    if not r.failed and r.status != "fail":
        return verdict(protocol.VERDICT_PASS, "")

    ran_out = bool(r.timeout) and r.timeout > 0 and r.time >= r.timeout * 0.98
    deadly = DEADLY_SIGNAL.search(r.output) is not None
    if r.kind == "compile-fail":
        # cmake -P prints PASS/FAIL lines and no exit status; only the clock tells a kill.
        if ran_out:
            return verdict(protocol.VERDICT_TIMEOUT,
                           f"killed by CTest's TIMEOUT ({seconds(r.timeout)}) while compiling")
        if protocol.TWIN_NOT_BUILT_PREFIX in r.output:
            return verdict(protocol.VERDICT_NOT_BUILT, "its positive twin does not compile")
        return verdict(protocol.VERDICT_FAIL, "the compile check failed")
    if exit_status is None:
        if ran_out or not r.timeout:
            limit = f" ({seconds(r.timeout)})" if r.timeout else ""
            return verdict(protocol.VERDICT_TIMEOUT,
                           f"killed by CTest's TIMEOUT{limit} after {seconds(r.time)}: no exit status")
        if deadly:
            return verdict(protocol.VERDICT_CRASH, "sanitizer: deadly signal (no exit status)")
        return verdict(protocol.VERDICT_FAIL,
                       f"no exit status after {seconds(r.time)} "
                       "(output truncated by CTest, or the launcher was killed)")
    code = exit_status
    starved = STARVED_LINE.search(r.output)
    if starved and code in (protocol.TIMEOUT, protocol.FAIL):
        return verdict(protocol.VERDICT_INCONCLUSIVE, "starved by other load: " + trim(starved[1]))
    if code == protocol.TIMEOUT or protocol.TIMEOUT_PREFIX in r.output:
        return verdict(protocol.VERDICT_TIMEOUT, f"watchdog timeout (exit status {code})")
    if code >= 128:
        return verdict(protocol.VERDICT_CRASH, f"killed by {signal_name(code - 128)} (exit status {code})")
    if deadly:
        return verdict(protocol.VERDICT_CRASH, f"sanitizer: deadly signal (exit status {code})")
    if code == protocol.NOT_APPLICABLE:
        return verdict(protocol.VERDICT_NOT_APPLICABLE, f"exit status {code} (not applicable)")
    if code == protocol.SANITIZER:
        return verdict(protocol.VERDICT_FAIL, f"sanitizer report (exit status {code})")
    if code == protocol.PASS:
        return verdict(protocol.VERDICT_FAIL, "CTest reported a failure with exit status 0")
    return verdict(protocol.VERDICT_FAIL, f"exit status {code}")


# ---------------------------------------------------------------- what the report quotes

CONFIG_LINE = re.compile(r"^\[saferecl\] [^\n]*: seed=([0-9]+)[^\n]*")


def seed_and_config(output: str) -> tuple[str, str]:
    """("N", the whole line) of the first "[saferecl] <test>: seed=N ..." line, or ("", "")."""
    for line in split_lines(output):
        m = CONFIG_LINE.search(line)
        if m:
            return m[1], line
    return "", ""


# In order of preference: the first line matching each pattern wins.
HEADLINE_PATTERNS = [re.compile(p) for p in (
    r"SUMMARY: \w*Sanitizer: .*",
    re.escape(protocol.TIMEOUT_PREFIX) + ".*",
    r"\[saferecl\] [^\n]*" + re.escape(protocol.STALL_MARK) + ".*",
    r"ERROR: \w*Sanitizer: .*",
    r"WARNING: \w*Sanitizer: .*",
    r".*: (ERROR|FATAL ERROR): .*",
    r"^\s*FAIL: .*",
    re.escape(protocol.NOT_APPLICABLE_PREFIX) + " .*",
    r".*(terminate called|Segmentation fault|Aborted|error: ).*",
)]
# "/long/path/to/file.cpp:12: ERROR: ..." -> "file.cpp:12: ERROR: ..."
DIRECTORY_OF_LOCATION = re.compile(r"(^|\s)(/[^\s:]*/)([^/\s:]+:\d+)")


def headline_of(output: str) -> str:
    """The most telling line of an output: a sanitizer's summary, the watchdog, a failed
    check (with doctest's "values:" line), the compiler's error."""
    lines = split_lines(output)
    for pattern in HEADLINE_PATTERNS:
        for i, line in enumerate(lines):
            m = pattern.search(line)
            if not m:
                continue
            found = trim(m[0])
            if i + 1 < len(lines) and trim(lines[i + 1]).startswith("values:"):
                found += "  " + trim(lines[i + 1])
            found = DIRECTORY_OF_LOCATION.sub(r"\1\3", found)
            return found[:297] + "..." if len(found) > 300 else found
    return ""


def is_doctest_banner(line: str) -> bool:
    return line.startswith(('[doctest] doctest version is', '[doctest] run with "--help"'))


def excerpt_of(output: str, max_chars: int = 6000) -> str:
    """Head and tail of an output without doctest's banner, at most about max_chars: the
    first report and the exit status both matter."""
    kept = [line for line in split_lines(output) if not is_doctest_banner(line)]
    while kept and not trim(kept[-1]):
        kept.pop()
    whole = "".join(line + "\n" for line in kept)
    if len(whole) <= max_chars:
        return whole
    head_budget = max_chars * 2 // 3
    tail_budget = max_chars - head_budget
    head = used = 0
    while head < len(kept) and used + len(kept[head]) + 1 <= head_budget:
        used += len(kept[head]) + 1
        head += 1
    tail, used = len(kept), 0
    while tail > head and used + len(kept[tail - 1]) + 1 <= tail_budget:
        tail -= 1
        used += len(kept[tail]) + 1
    text = "".join(line + "\n" for line in kept[:head])
    if head == 0 and kept:  # one giant line
        text = kept[0][:head_budget] + "\n"
    text += f"[... {tail - head} lines omitted; the full output is in junit.xml ...]\n"
    return text + "".join(line + "\n" for line in kept[tail:])


# ---------------------------------------------------------------- test names

STABLE_NAME = re.compile(r"^\s*([a-z][a-z0-9_]*(\.[a-z0-9_]+)+)(/([0-9]+))?")
ROW_ID = re.compile(r"(^|[^A-Za-z0-9_.])([GRHB][0-9]{1,2})(?![0-9])")


@dataclass
class NameParts:
    stable: str = ""
    paragraph: str = ""
    ids: tuple[str, ...] = ()


def parse_test_name(name: str) -> NameParts:
    """"saferecl.hp.holder.mem/5 H30: what" -> stable "saferecl.hp.holder.mem", paragraph
    "5", ids ("H30",). Used for names the index does not describe (a killing test of
    mutants.json, a test CTest ran that the index lacks)."""
    head = name.split(":", 1)[0]
    parts = NameParts()
    rest = 0
    m = STABLE_NAME.search(head)
    if m:
        parts.stable, parts.paragraph = m[1], m[4] or ""
        rest = m.end()
    ids: list[str] = []
    for found in ROW_ID.finditer(head[rest:]):
        if found[2] not in ids:
            ids.append(found[2])
    parts.ids = tuple(ids)
    return parts
