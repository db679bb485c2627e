"""The reference's performance targets, judged on one bench run: each is a ratio of two
medians measured in the same run (alternating rounds), so machine speed cancels out.

    read side          rcu/lock_unlock           <= 1.1 x liburcu's own inline read side
    protect            hp/protect_reset          <= 1.1 x a relaxed store, an acquire reload and
                                                          a store (publish, validate, end)
    make + destroy     hp/make_destroy           <= 1.5 x a pop and a push of a thread_local stack
    retire             hp/retire                 <= 1.5 x new + delete of a like object
                                                 <= 1.5 x the same deleted 1,000 at a time
                       hp/retire at 1, 2, 4, 8   <= 1   x the best native peer (a library's own
                                                          API, <library>-native)
    deferred free      rcu/retire_barrier        <= 1   x the best other implementation
                       rcu/obj_retire_barrier    <= 1   x the best other implementation

The two deferred frees differ in where the node that carries an object to its deleter lives:
rcu_retire(p) of an object without a base class needs one of its own (the libraries' native
programs then allocate one too: an entry with a pointer), rcu_obj_base::retire() finds it in
the object (the natives embed their entry). So each compares like with like.

At one thread unless a thread count is given. A target whose comparison point is missing from
the run (a library not installed, a filter) is "not measured", never met."""

from __future__ import annotations

from dataclasses import dataclass

from reports.bench import BenchTable

REFERENCE = "reference"
BEST_PEER = "the best other implementation"
BEST_NATIVE_PEER = "the best native peer"
NATIVE_SUFFIX = "-native"


@dataclass(frozen=True)
class Target:
    what: str
    case: str
    bound: float
    against_case: str  # the comparison's case
    against_impl: str  # whose measurement of it; BEST_PEER: the lowest of the others;
    #                    BEST_NATIVE_PEER: the lowest of the <library>-native columns
    threads: int = 1   # both medians at this thread count

    @property
    def anchor(self) -> str:
        """Tells two targets on one case apart (a page anchor)."""
        return f"{self.case}-{self.against_case}-{self.threads}"


TARGETS = [
    Target("read-side lock + unlock", "rcu/lock_unlock", 1.1, "rcu/lock_unlock", "liburcu-native"),
    Target("protect + reset_protection", "hp/protect_reset", 1.1, "baseline/store_reload_clear", REFERENCE),
    Target("make_hazard_pointer + destroy", "hp/make_destroy", 1.5, "baseline/tls_pop_push", REFERENCE),
    Target("retire (with new)", "hp/retire", 1.5, "baseline/new_delete", REFERENCE),
    Target("retire (with new), against deletes in batches", "hp/retire", 1.5,
           "baseline/new_delete_deferred", REFERENCE),
    *(Target(f"retire (with new), {n} thread{'s' if n > 1 else ''}", "hp/retire", 1.0, "hp/retire",
             BEST_NATIVE_PEER, threads=n) for n in (1, 2, 4, 8)),
    Target("rcu_retire + rcu_barrier, per object", "rcu/retire_barrier", 1.0, "rcu/retire_barrier", BEST_PEER),
    Target("rcu_obj_base::retire + rcu_barrier, per object", "rcu/obj_retire_barrier", 1.0,
           "rcu/obj_retire_barrier", BEST_PEER),
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


def medians(table: BenchTable, case: str, threads: int) -> dict[str, float]:
    """impl -> median of `case` at `threads` threads, for the cells that have one."""
    if (case, threads) not in table.rows:
        return {}
    row = table.rows.index((case, threads))
    return {impl: c.median_ns for (r, impl), c in table.cells.items()
            if r == row and c.status == "ok" and c.median_ns}


def peers_of(target: Target, against: dict[str, float]) -> dict[str, float]:
    """The measurements a BEST_PEER or BEST_NATIVE_PEER target picks the lowest of."""
    return {impl: ns for impl, ns in against.items() if impl != REFERENCE and
            (target.against_impl == BEST_PEER or impl.endswith(NATIVE_SUFFIX))}


def judge_targets(table: BenchTable) -> list[Judged]:
    judged = []
    for target in TARGETS:
        result = Judged(target, reference_ns=medians(table, target.case, target.threads).get(REFERENCE))
        against = medians(table, target.against_case, target.threads)
        if target.against_impl in (BEST_PEER, BEST_NATIVE_PEER):
            peers = peers_of(target, against)
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
