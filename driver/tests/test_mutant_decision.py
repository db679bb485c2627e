"""The mutant kill decision: what each catalog status expects, and when a survivor is run again."""

import pytest

from driver import mutant_catalog
from driver.mutant_catalog import decide, retry


@pytest.mark.parametrize("status, ran, killed, expected", [
    ("mutant", 5, True, ("killed", True)),
    ("mutant", 5, False, ("SURVIVED", False)),
    ("not-a-bug", 40, False, ("spared (conforming)", True)),
    ("not-a-bug", 40, True, ("WRONGLY KILLED", False)),
    ("hardware-dependent", 3, False, ("survived (hardware)", True)),
    ("hardware-dependent", 3, True, ("killed", True)),
    # No test ran: proves nothing, whatever the status.
    ("mutant", 0, False, ("NO TEST RAN", False)),
    ("not-a-bug", 0, False, ("NO TEST RAN", False)),
    ("hardware-dependent", 0, False, ("NO TEST RAN", False)),
])
def test_decision(status, ran, killed, expected):
    assert decide(status, ran, killed) == expected


def test_a_broken_build_is_no_mutant():
    assert decide("mutant", 4, True, broken=True) == ("BUILD BROKEN", False)


def run(killed: bool, ran: int = 3) -> dict:
    return {"killed_by": [{"test": "t", "time": 1.0}] if killed else [], "tests_run": ran}


def test_a_surviving_bug_is_retried_up_to_five_attempts():
    bug = {"status": "mutant"}
    assert all(retry(bug, attempt, run(False)) for attempt in range(1, 5))
    assert not retry(bug, 5, run(False))
    assert not retry(bug, 1, run(True))
    assert not retry(bug, 1, run(False, ran=0))  # nothing to retry: a catalog or build problem


def test_a_conforming_variant_gets_one_run():
    assert not retry({"status": "not-a-bug"}, 1, run(True))
    assert not retry({"status": "not-a-bug"}, 1, run(False))


def test_the_catalog_statuses_all_have_expectations():
    statuses = {m["status"] for m in mutant_catalog.load(None)}
    assert statuses <= set(mutant_catalog.EXPECTATIONS)


def test_the_self_test_sweeps_every_bug_and_the_variants_in_shares_that_cover_them_all():
    from driver.commands.test import CONFORMING_SHARES, sweep_selection
    catalog = mutant_catalog.load(None)
    bugs = {m["id"] for m in catalog if m["status"] != "not-a-bug"}
    variants = {m["id"] for m in catalog if m["status"] == "not-a-bug"}
    swept_variants = []
    for seed in range(100, 100 + CONFORMING_SHARES):
        selected, left = sweep_selection(seed)
        assert bugs <= set(selected)
        assert set(selected) | set(left) == bugs | variants and not set(selected) & set(left)
        swept_variants += [v for v in selected if v in variants]
    assert sorted(swept_variants) == sorted(variants)  # each variant in exactly one share
    assert sweep_selection(7) == sweep_selection(7 + CONFORMING_SHARES)
