"""The reference's targets (reports/bench_targets.py): ratios of two medians of one run, met,
missed or not measured, never met without both measurements."""

from __future__ import annotations

from reports.bench import bench_table
from reports.bench_targets import judge_ceilings, judge_targets


def table(cells: dict[tuple[str, str], float]) -> object:
    return bench_table({"benchmarks": [
        {"benchmark": case, "threads": 1, "implementation": impl, "status": "ok", "median_ns": ns}
        for (case, impl), ns in cells.items()]})


def outcomes(cells) -> dict[str, tuple[str, str]]:
    return {j.target.case: (j.outcome, j.against) for j in judge_targets(table(cells))}


def test_met_missed_and_not_measured():
    got = outcomes({("hp/protect_reset", "reference"): 0.98,
                    ("hp/make_destroy", "reference"): 2.5,
                    ("baseline/relaxed_store_reload", "reference"): 0.9,
                    ("hp/retire", "reference"): 25.0})
    assert got["hp/protect_reset"] == ("met", "reference baseline/relaxed_store_reload")  # 1.09
    assert got["hp/make_destroy"][0] == "missed"  # 2.78 > 2
    assert got["hp/retire"] == ("not measured", ""), "no new+delete baseline in the run"
    assert got["rcu/lock_unlock"] == ("not measured", ""), "no reference measurement"


def test_the_best_peer_is_the_lowest_other_implementation():
    got = outcomes({("rcu/retire_barrier", "reference"): 120.0,
                    ("rcu/retire_barrier", "libcds"): 330.0,
                    ("rcu/retire_barrier", "liburcu-native"): 100.0})
    assert got["rcu/retire_barrier"] == ("missed", "liburcu-native rcu/retire_barrier")


def test_the_read_side_is_judged_against_liburcu_at_its_best_not_its_adapter():
    got = outcomes({("rcu/lock_unlock", "reference"): 1.0, ("rcu/lock_unlock", "liburcu"): 5.0,
                    ("rcu/lock_unlock", "liburcu-native"): 0.8})
    assert got["rcu/lock_unlock"] == ("missed", "liburcu-native rcu/lock_unlock")  # 1.25 > 1.1


def ceilings(entries: list[dict]) -> dict[str, str]:
    judged = judge_ceilings(bench_table({"benchmarks": entries}))
    return {j.ceiling.case: j.outcome for j in judged}


def test_a_ceiling_is_an_absolute_bound_and_a_timeout_misses_it():
    got = ceilings([
        {"benchmark": "rcu/synchronize/readers:16", "threads": 1, "implementation": "reference",
         "status": "ok", "median_ns": 99e6},
        {"benchmark": "rcu/synchronize/readers:64", "threads": 1, "implementation": "reference",
         "status": "timeout", "reason": "did not finish within 20 s"}])
    assert got == {"rcu/synchronize/readers:16": "met", "rcu/synchronize/readers:64": "missed"}


def test_a_ceiling_without_the_reference_is_not_measured_and_a_peer_does_not_count():
    got = ceilings([{"benchmark": "rcu/synchronize/readers:16", "threads": 1,
                     "implementation": "libcds", "status": "ok", "median_ns": 1e6}])
    assert got == {"rcu/synchronize/readers:16": "not measured",
                   "rcu/synchronize/readers:64": "not measured"}
    got = ceilings([{"benchmark": "rcu/synchronize/readers:64", "threads": 1,
                     "implementation": "reference", "status": "ok", "median_ns": 101e6}])
    assert got["rcu/synchronize/readers:64"] == "missed"
