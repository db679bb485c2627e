"""The reference's targets (reports/bench_targets.py): ratios of two medians of one run, met,
missed or not measured, never met without both measurements."""

from __future__ import annotations

from reports.bench import bench_table
from reports.bench_targets import judge_ceilings, judge_targets


def table(cells: dict[tuple, float]) -> object:
    """(case, impl) at one thread, or (case, impl, threads) -> median ns."""
    return bench_table({"benchmarks": [
        {"benchmark": key[0], "threads": key[2] if len(key) > 2 else 1, "implementation": key[1],
         "status": "ok", "median_ns": ns}
        for key, ns in cells.items()]})


def outcomes(cells) -> dict[tuple[str, str, int], tuple[str, str]]:
    """(case, comparison case, threads) -> (outcome, the comparison point's impl and case)."""
    return {(j.target.case, j.target.against_case, j.target.threads): (j.outcome, j.against)
            for j in judge_targets(table(cells))}


def test_met_missed_and_not_measured():
    got = outcomes({("hp/protect_reset", "reference"): 0.98,
                    ("hp/make_destroy", "reference"): 2.5,
                    ("baseline/store_reload_clear", "reference"): 0.9,
                    ("baseline/tls_pop_push", "reference"): 1.6,
                    ("hp/retire", "reference"): 25.0})
    assert got["hp/protect_reset", "baseline/store_reload_clear", 1] == (
        "met", "reference baseline/store_reload_clear")  # 1.09
    assert got["hp/make_destroy", "baseline/tls_pop_push", 1][0] == "missed"  # 1.56 > 1.5
    assert got["hp/retire", "baseline/new_delete", 1] == ("not measured", ""), "no new+delete baseline"
    assert got["rcu/lock_unlock", "rcu/lock_unlock", 1] == ("not measured", ""), "no reference measurement"


def test_protect_is_judged_against_three_memory_operations_not_two():
    got = outcomes({("hp/protect_reset", "reference"): 0.9,
                    ("baseline/relaxed_store_reload", "reference"): 0.6,
                    ("baseline/store_reload_clear", "reference"): 0.85})
    assert got["hp/protect_reset", "baseline/store_reload_clear", 1][0] == "met"  # 1.06, not 1.5


def test_make_destroy_is_met_within_one_and_a_half_pop_push():
    got = outcomes({("hp/make_destroy", "reference"): 2.9,
                    ("baseline/tls_pop_push", "reference"): 2.0})
    assert got["hp/make_destroy", "baseline/tls_pop_push", 1] == ("met", "reference baseline/tls_pop_push")


def test_retire_is_judged_against_new_delete_and_against_deferred_deletes():
    got = outcomes({("hp/retire", "reference"): 20.0,
                    ("baseline/new_delete", "reference"): 8.0,
                    ("baseline/new_delete_deferred", "reference"): 18.0})
    assert got["hp/retire", "baseline/new_delete", 1][0] == "missed"  # 2.5
    assert got["hp/retire", "baseline/new_delete_deferred", 1][0] == "met"  # 1.11


def test_retire_at_each_thread_count_against_the_best_native_peer_only():
    got = outcomes({("hp/retire", "reference", 2): 30.0,
                    ("hp/retire", "ck", 2): 20.0,  # an adapter column: not a native peer
                    ("hp/retire", "ck-native", 2): 29.0,
                    ("hp/retire", "libcds-native", 2): 60.0,
                    ("hp/retire", "reference", 4): 25.0,
                    ("hp/retire", "xenium-native", 4): 50.0,
                    ("hp/retire", "reference", 8): 25.0})
    assert got["hp/retire", "hp/retire", 2] == ("missed", "ck-native hp/retire")  # 30 > 29
    assert got["hp/retire", "hp/retire", 4] == ("met", "xenium-native hp/retire")
    assert got["hp/retire", "hp/retire", 8] == ("not measured", ""), "no native peer at 8 threads"
    assert got["hp/retire", "hp/retire", 1] == ("not measured", ""), "no one-thread cells"


def test_the_best_peer_is_the_lowest_other_implementation():
    got = outcomes({("rcu/retire_barrier", "reference"): 120.0,
                    ("rcu/retire_barrier", "libcds"): 330.0,
                    ("rcu/retire_barrier", "liburcu-native"): 100.0})
    assert got["rcu/retire_barrier", "rcu/retire_barrier", 1] == (
        "missed", "liburcu-native rcu/retire_barrier")


def test_each_deferred_free_is_judged_against_peers_of_its_own_form():
    # an embedded entry (obj_retire_barrier) is cheaper than a node of its own: the two forms
    # are judged apart, each against the same form elsewhere
    got = outcomes({("rcu/retire_barrier", "reference"): 21.0,
                    ("rcu/retire_barrier", "ck-native"): 25.0,
                    ("rcu/obj_retire_barrier", "reference"): 18.0,
                    ("rcu/obj_retire_barrier", "ck-native"): 15.0})
    assert got["rcu/retire_barrier", "rcu/retire_barrier", 1] == ("met", "ck-native rcu/retire_barrier")
    assert got["rcu/obj_retire_barrier", "rcu/obj_retire_barrier", 1] == (
        "missed", "ck-native rcu/obj_retire_barrier")


def test_the_read_side_is_judged_against_liburcu_at_its_best_not_its_adapter():
    got = outcomes({("rcu/lock_unlock", "reference"): 1.0, ("rcu/lock_unlock", "liburcu"): 5.0,
                    ("rcu/lock_unlock", "liburcu-native"): 0.8})
    assert got["rcu/lock_unlock", "rcu/lock_unlock", 1] == (
        "missed", "liburcu-native rcu/lock_unlock")  # 1.25 > 1.1


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
