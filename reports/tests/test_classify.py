"""Verdict classification and what the report quotes from an output: one case per rule of
reports/classify.py, so that a change to a rule fails here in seconds."""

from __future__ import annotations

import pytest

from reports import protocol
from reports.classify import (CaseRecord, classify, excerpt_of, exit_status_of, headline_of,
                              parse_test_name, seed_and_config)

DONE = "[saferecl] exit status {}\n"


def case(status="fail", output="", **kw) -> CaseRecord:
    return CaseRecord(name="impl/test", status=status, output=output,
                      **{"failed": status == "fail", "time": 1.0, "timeout": 300.0, **kw})


@pytest.mark.parametrize("record,verdict,detail", [
    (case("run", DONE.format(0)), "PASS", ""),
    (case("notrun", DONE.format(77), skipped=True, skip_message="SKIP_RETURN_CODE=77"),
     "NOT APPLICABLE", "exit status 77 (not applicable)"),
    (case("disabled", skipped=True, skip_message="Disabled"), "NOT APPLICABLE", "disabled in CTest"),
    (case("notrun", skipped=True, skip_message="Unable to find executable"),
     "NOT BUILT", "CTest could not run it: Unable to find executable"),
    (case(output=DONE.format(1)), "FAIL", "exit status 1"),
    (case(output=DONE.format(1), failed=False), "FAIL", "exit status 1"),  # status="fail" alone
    (case("run", DONE.format(1), failed=True), "FAIL", "exit status 1"),  # <failure> alone
    (case(output=DONE.format(66)), "FAIL", "sanitizer report (exit status 66)"),
    (case(output=DONE.format(0)), "FAIL", "CTest reported a failure with exit status 0"),
    (case(output=DONE.format(77)), "NOT APPLICABLE", "exit status 77 (not applicable)"),
    (case(output=DONE.format(124)), "TIMEOUT", "watchdog timeout (exit status 124)"),
    (case(output="[saferecl] TIMEOUT: x\n" + DONE.format(1)), "TIMEOUT", "watchdog timeout (exit status 1)"),
    (case(output="[saferecl] TIMEOUT: x\n[saferecl] STARVED: could run 0.01 s\n" + DONE.format(124)),
     "INCONCLUSIVE", "starved by other load: could run 0.01 s"),
    (case(output="[saferecl] X: STALL: y\n[saferecl] STARVED: could run 0.2 s\n" + DONE.format(1)),
     "INCONCLUSIVE", "starved by other load: could run 0.2 s"),
    (case(output="[saferecl] STARVED: could run 0.2 s\n" + DONE.format(66)), "FAIL",
     "sanitizer report (exit status 66)"),  # a race is evidence whatever the load
    (case(output=DONE.format(139)), "CRASH", "killed by SIGSEGV (exit status 139)"),
    (case(output=DONE.format(134)), "CRASH", "killed by SIGABRT (exit status 134)"),
    (case(output=DONE.format(128)), "CRASH", "killed by signal 0 (exit status 128)"),
    (case(output=DONE.format(127)), "FAIL", "exit status 127"),
    (case(output="AddressSanitizer:DEADLYSIGNAL\n" + DONE.format(1)), "CRASH",
     "sanitizer: deadly signal (exit status 1)"),
    (case(output="==1==ERROR: AddressSanitizer: SEGV on unknown address\n" + DONE.format(1)), "CRASH",
     "sanitizer: deadly signal (exit status 1)"),
    (case(output="", time=300.0), "TIMEOUT", "killed by CTest's TIMEOUT (300.0 s) after 300.0 s: no exit status"),
    (case(output="", timeout=None), "TIMEOUT", "killed by CTest's TIMEOUT after 1.00 s: no exit status"),
    (case(output="ThreadSanitizer:DEADLYSIGNAL\n"), "CRASH", "sanitizer: deadly signal (no exit status)"),
    (case(output="partial"), "FAIL",
     "no exit status after 1.00 s (output truncated by CTest, or the launcher was killed)"),
    (case(output="FAIL: compiled", kind="compile-fail", timeout=120.0), "FAIL", "the compile check failed"),
    (case(output="", kind="compile-fail", time=119.0, timeout=120.0), "TIMEOUT",
     "killed by CTest's TIMEOUT (120.0 s) while compiling"),
    (case(output="[saferecl] NOT BUILT: the positive twin (offending line switched off) does not compile\n"
                 "t.compile.fail.cpp:17:20: error: unknown template name 'rcu_obj_base'\n", kind="compile-fail"),
     "NOT BUILT", "its positive twin does not compile"),
])
def test_classify(record, verdict, detail):
    c = classify(record)
    assert (c.verdict, c.detail) == (verdict, detail)


def test_every_verdict_is_a_protocol_name():
    assert set(protocol.VERDICTS) == {"PASS", "FAIL", "TIMEOUT", "CRASH", "NOT APPLICABLE", "NOT BUILT", "INCONCLUSIVE",
                                     "NOT RUN"}
    assert protocol.FAILING_VERDICTS == {"FAIL", "TIMEOUT", "CRASH", "NOT BUILT"}


def test_exit_status_is_the_last_status_line():
    assert exit_status_of("[saferecl] exit status 1\n[saferecl] exit status 66\n") == 66
    assert exit_status_of("no line") is None


def test_seed_and_config():
    assert seed_and_config("x\n[saferecl] hp_exchange: seed=7 scale=1\n") == \
        ("7", "[saferecl] hp_exchange: seed=7 scale=1")
    assert seed_and_config("[saferecl] exit status 0\n") == ("", "")


@pytest.mark.parametrize("output,headline", [
    ("/a/b/t.cpp:40: ERROR: CHECK( !ok ) is NOT correct!\n  values: CHECK( !true )\n",
     "t.cpp:40: ERROR: CHECK( !ok ) is NOT correct!  values: CHECK( !true )"),
    ("WARNING: ThreadSanitizer: data race\nSUMMARY: ThreadSanitizer: data race /x/y.cpp:61:5 in f()\n",
     "SUMMARY: ThreadSanitizer: data race y.cpp:61:5 in f()"),
    ("[saferecl] NOT APPLICABLE: needs 3 cores\n", "[saferecl] NOT APPLICABLE: needs 3 cores"),
    ("nothing telling\n", ""),
])
def test_headline(output, headline):
    assert headline_of(output) == headline


# What a parent prints when its forked child made no progress (suite/support/child_process.hpp),
# and when that child was itself a parent (a nested fork): the test's TIMEOUT, never a FAIL.
CHILD_WITHOUT_PROGRESS = (
    "[saferecl] TIMEOUT: forked child 4180 made no progress for 1500 ms of the time it could run "
    "(1563 ms of wall time): killed\n"
    "[saferecl] evidence (the child's threads):\n"
    "  window without progress: wall 1.56 s, could run 1.53 s (98%); the process ran 0.00 s on 2 CPU(s)\n"
    "    tid 4180 mutants.hp (main): blocked (futex_do_wait); 0.00 s / 0.03 s\n")


@pytest.mark.parametrize("output", [
    CHILD_WITHOUT_PROGRESS + DONE.format(124),
    CHILD_WITHOUT_PROGRESS + "[saferecl] TIMEOUT: forked child 4179 timed out (above)\n" + DONE.format(124),
])
def test_a_forked_child_without_progress_is_a_timeout(output):
    assert classify(case(output=output)).verdict == "TIMEOUT"
    assert headline_of(output).startswith("[saferecl] TIMEOUT: forked child 4180 made no progress")


def test_a_forked_child_starved_by_other_load_is_inconclusive():
    output = CHILD_WITHOUT_PROGRESS + "[saferecl] STARVED: the process could run 0.20 s\n" + DONE.format(124)
    assert classify(case(output=output)).verdict == "INCONCLUSIVE"


def test_excerpt_drops_the_banner_and_keeps_head_and_tail():
    output = '[doctest] doctest version is "2.4.9"\n' + "".join(f"line {n}\n" for n in range(2000))
    excerpt = excerpt_of(output, 600)
    assert "doctest version" not in excerpt
    assert excerpt.startswith("line 0\n") and excerpt.endswith("line 1999\n")
    assert "lines omitted; the full output is in junit.xml" in excerpt
    assert len(excerpt) < 700
    assert excerpt_of("a\nb\n\n\n") == "a\nb\n"


@pytest.mark.parametrize("name,stable,paragraph,ids", [
    ("saferecl.hp.holder.mem/5 H30: try_protect", "saferecl.hp.holder.mem", "5", ("H30",)),
    ("saferecl.rcu.domain.general R19 R14(a): x H3", "saferecl.rcu.domain.general", "", ("R19", "R14")),
    ("saferecl.hp.general/6 H8 HX-06: x", "saferecl.hp.general", "6", ("H8",)),
    ("saferecl.demo/1 a test", "saferecl.demo", "1", ()),
    ("harness: the runner starts", "", "", ()),
    ("saferecl.hp.base/7 H140: three digits is no row", "saferecl.hp.base", "7", ()),
])
def test_parse_test_name(name, stable, paragraph, ids):
    parts = parse_test_name(name)
    assert (parts.stable, parts.paragraph, parts.ids) == (stable, paragraph, ids)
