"""The reference implementation's performance targets, judged on one bench run: each is a ratio
of two medians measured in the same run (alternating rounds), so machine speed cancels out.

    read side          rcu/lock_unlock           <= 1.1 x liburcu's own inline read side
    protect            hp/protect_reset          <= 1.1 x a relaxed store and an acquire reload
    make + destroy     hp/make_destroy           <= 2   x the same two memory operations
    retire             hp/retire                 <= 1.5 x new + delete of a like object
    deferred free      rcu/retire_barrier        <= 1   x the best other implementation

All at one thread. A target whose comparison point is missing from the run (a library not
installed, a filter) is "not measured", never met."""

from __future__ import annotations

from dataclasses import dataclass

from reports.bench import BenchTable

REFERENCE = "reference"
BEST_PEER = "the best other implementation"


@dataclass(frozen=True)
class Target:
    what: str
    case: str
    bound: float
    against_case: str  # the comparison's case
    against_impl: str  # whose measurement of it; BEST_PEER: the lowest of the others


TARGETS = [
    Target("read-side lock + unlock", "rcu/lock_unlock", 1.1, "rcu/lock_unlock", "liburcu-native"),
    Target("protect + reset_protection", "hp/protect_reset", 1.1, "baseline/relaxed_store_reload", REFERENCE),
    Target("make_hazard_pointer + destroy", "hp/make_destroy", 2.0, "baseline/relaxed_store_reload", REFERENCE),
    Target("retire (with new)", "hp/retire", 1.5, "baseline/new_delete", REFERENCE),
    Target("rcu_retire + rcu_barrier, per object", "rcu/retire_barrier", 1.0, "rcu/retire_barrier", BEST_PEER),
]


@dataclass
class Judged:
    target: Target
    reference_ns: float | None = None
    against: str = ""  # "<impl> <case>" of the comparison point
    against_ns: float | None = None

    @property
    def ratio(self) -> float | None:
        if self.reference_ns is None or not self.against_ns:
            return None
        return self.reference_ns / self.against_ns

    @property
    def outcome(self) -> str:
        if self.ratio is None:
            return "not measured"
        return "met" if self.ratio <= self.target.bound else "missed"


def one_thread_medians(table: BenchTable, case: str) -> dict[str, float]:
    """impl -> median of `case` at one thread, for the cells that have one."""
    if (case, 1) not in table.rows:
        return {}
    row = table.rows.index((case, 1))
    return {impl: c.median_ns for (r, impl), c in table.cells.items()
            if r == row and c.status == "ok" and c.median_ns}


def judge_targets(table: BenchTable) -> list[Judged]:
    judged = []
    for target in TARGETS:
        result = Judged(target, reference_ns=one_thread_medians(table, target.case).get(REFERENCE))
        against = one_thread_medians(table, target.against_case)
        if target.against_impl == BEST_PEER:
            peers = {impl: ns for impl, ns in against.items() if impl != REFERENCE}
            if peers:
                best = min(peers, key=peers.get)
                result.against, result.against_ns = f"{best} {target.against_case}", peers[best]
        elif target.against_impl in against:
            result.against = f"{target.against_impl} {target.against_case}"
            result.against_ns = against[target.against_impl]
        judged.append(result)
    return judged


# ------------------------------------------------------------------------------- ceilings
# A latency that the scheduler, not the machine's speed, sets has no meaningful ratio: the
# peers wait for the same preempted readers (or time out). Such a target is an absolute bound
# on the reference's median of one case, on the project's machine kind (2 cores). A timeout
# or a crash of the case is a miss (a verdict), never "not measured".
#
#     synchronize, oversubscribed   rcu/synchronize/readers:16, readers:64   <= 100 ms

@dataclass(frozen=True)
class Ceiling:
    what: str
    case: str  # the bench row (one thread), e.g. "rcu/synchronize/readers:16"
    bound_ns: float


CEILINGS = [
    Ceiling("rcu_synchronize beside 16 readers spinning in regions (2 cores)",
            "rcu/synchronize/readers:16", 100e6),
    Ceiling("rcu_synchronize beside 64 readers spinning in regions (2 cores)",
            "rcu/synchronize/readers:64", 100e6),
]


@dataclass
class JudgedCeiling:
    ceiling: Ceiling
    reference_ns: float | None = None
    status: str = ""  # the reference's cell status ("" when the case is not in the run)

    @property
    def outcome(self) -> str:
        if self.reference_ns is not None:
            return "met" if self.reference_ns <= self.ceiling.bound_ns else "missed"
        return "missed" if self.status in ("timeout", "failed") else "not measured"


def judge_ceilings(table: BenchTable) -> list[JudgedCeiling]:
    judged = []
    for ceiling in CEILINGS:
        result = JudgedCeiling(ceiling)
        if (ceiling.case, 1) in table.rows:
            cell = table.cells.get((table.rows.index((ceiling.case, 1)), REFERENCE))
            if cell is not None:
                result.status = cell.status
                result.reference_ns = cell.median_ns if cell.status == "ok" else None
        judged.append(result)
    return judged
