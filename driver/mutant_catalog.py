"""The mutant catalog (adapters/mutants/catalog.json; adapters/mutants/README.md explains
its fields) and the decision whether a mutant run came out as its entry expects.

The decision is a pure function of the entry's status, how many tests ran and which failed,
so it is unit-tested (driver/tests/test_mutant_decision.py) apart from any build."""

from __future__ import annotations

import json

from driver.console import say
from driver.errors import EnvironmentProblem, UsageError
from driver.paths import ADAPTERS, ROOT

CATALOG = ADAPTERS / "mutants" / "catalog.json"

# What each catalog status expects of its run, and the verdict words for either outcome.
EXPECTATIONS = {
    # status: (must be killed? None: either is fine, verdict if killed, verdict if not)
    "mutant": (True, "killed", "SURVIVED"),
    "not-a-bug": (False, "WRONGLY KILLED", "spared (conforming)"),
    # A missing fence that only hardware reordering more than a 2-core x86 can show.
    "hardware-dependent": (None, "killed", "survived (hardware)"),
}
NO_TEST_RAN = "NO TEST RAN"
BUILD_BROKEN = "BUILD BROKEN"

# How often a catalogued run-time bug is run before it is called a survivor. Many kills are
# races (a fork landing inside a pass, a reader overlapping a reclamation): a miss at one
# seed and schedule is not proof the tests cannot catch it. Five: MH-71 (an exit's hand-over
# racing a pass) died in 26 of 30 single runs, yet survived three in a row in one sweep. A
# not-a-bug variant gets one run: a failure there, however rare, is a test that
# over-constrains, and no retry may hide it.
ATTEMPTS = {"mutant": 5}


def attempts_for(mutant: dict) -> int:
    return ATTEMPTS.get(mutant["status"], 1)


def decide(status: str, tests_run: int, killed: bool, broken: bool = False) -> tuple[str, bool]:
    """(verdict, as expected?) of one mutant run. A run that selected no test proves
    nothing either way (a catalog typo, or a killer that was not built); a compile-time
    mutant that breaks the library or the harness is no mutant."""
    must_die, if_killed, if_spared = EXPECTATIONS[status]
    if broken:
        return BUILD_BROKEN, False
    if tests_run <= 0:
        return NO_TEST_RAN, False
    verdict = if_killed if killed else if_spared
    return verdict, must_die is None or killed == must_die


def retry(mutant: dict, attempt: int, result: dict) -> bool:
    """Whether a run-time mutant is run again after `attempt`: only a bug that must die,
    survived, and had tests to run, and only while attempts remain."""
    return (attempt < attempts_for(mutant) and not result["killed_by"]
            and result["tests_run"] > 0)


def load(only: list[str] | None) -> list[dict]:
    """The catalog's runnable entries, or those named by `only` (an unknown id is a usage
    error naming the valid ones). Without `only`, the entries that cannot exist in the
    reference's design are listed, not run."""
    if not CATALOG.is_file():
        raise EnvironmentProblem(f"no mutant catalog at {CATALOG.relative_to(ROOT)}")
    catalog = json.loads(CATALOG.read_text())
    entries = catalog["mutants"]
    if only:
        known = {m["id"] for m in entries}
        unknown = [i for i in only if i not in known]
        if unknown:
            raise UsageError(f"unknown mutant {', '.join(unknown)}; the catalog "
                             f"({CATALOG.relative_to(ROOT)}) has: {', '.join(sorted(known))}")
        return [m for m in entries if m["id"] in only]
    for skipped in catalog.get("not_applicable", []):
        say(f"   n/a  {skipped['id']:<6} {skipped['why']}")
    return entries


def selected_tests(mutant: dict) -> list[str]:
    """The ctest -R patterns of an entry: the tests expected to kill a mutant, or the tests
    that a not-a-bug variant must pass."""
    return mutant["tests"] if mutant["status"] == "not-a-bug" else mutant["kill"]
