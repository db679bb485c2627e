"""Shards: a deterministic partition of a run's selection, for a CI matrix (`--shard K/N`).

A user who outgrows one machine runs N jobs of the same run, job K with `--shard K/N`, and
merges their report directories (reports/merge.py). Every job must compute the same
partition with no communication, so the partition depends only on the selection, N and
(optionally) a previous run's durations, never on the machine, the time or the order of a
directory listing.

The unit is a suite source file, not a test: a shard builds only the sources it owns (the
build's SAFERECL_SOURCES), and a source's tests all live in its object file, so splitting a
source across shards would compile it twice. With several implementations, a source goes
to one shard for all of them, for the same reason.

- Without durations a source goes to shard 1 + (SHA-256 of its path) mod N: adding,
  removing or renaming a source moves no other source (stable when tests are added).
- With durations (a previous results.json: the sum of its tests' times per source) the
  sources are spread by longest-processing-time first: each, longest first, to the shard
  with the least time so far; ties go to the smaller hash, then the lower shard number.
  A source the previous run did not have is charged the median and placed by its hash
  first, so it does not disturb the rest more than its own weight.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from reports.stats import median

SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(ValueError):
    """A --shard value or a durations file that cannot be used; the message says why."""


def parse_shard(text: str) -> tuple[int, int]:
    """"K/N" -> (K, N), 1 <= K <= N."""
    m = SHARD.match(text or "")
    if not m:
        raise ShardError(f"--shard {text!r}: expected K/N, e.g. 2/3 (the second of three shards)")
    k, n = int(m[1]), int(m[2])
    if n < 1 or not 1 <= k <= n:
        raise ShardError(f"--shard {text}: K must be between 1 and N (N >= 1)")
    return k, n


def shard_text(k: int, n: int) -> str:
    return f"{k}/{n}"


def _hash(unit: str) -> int:
    return int.from_bytes(hashlib.sha256(unit.encode()).digest()[:8], "big")


def hashed_shard(unit: str, n: int) -> int:
    return 1 + _hash(unit) % n


def partition(units: list[str], n: int, durations: dict[str, float] | None = None) -> dict[str, int]:
    """unit -> shard (1..n) for every unit."""
    units = sorted(set(units))
    if not durations:
        return {u: hashed_shard(u, n) for u in units}
    known = [u for u in units if u in durations]
    default = median([durations[u] for u in known]) if known else 0.0
    load = [0.0] * (n + 1)  # load[k] of shard k; index 0 unused
    assigned: dict[str, int] = {}
    for u in units:
        if u not in durations:
            assigned[u] = hashed_shard(u, n)
            load[assigned[u]] += default or 0.0
    for u in sorted(known, key=lambda u: (-durations[u], _hash(u), u)):
        k = min(range(1, n + 1), key=lambda k: (load[k], k))
        assigned[u] = k
        load[k] += durations[u]
    return {u: assigned[u] for u in units}


def select(units: list[str], k: int, n: int, durations: dict[str, float] | None = None) -> list[str]:
    """The units of shard k of n, sorted."""
    shards = partition(units, n, durations)
    return [u for u in sorted(shards) if shards[u] == k]


def durations_from_results(path: Path) -> dict[str, float]:
    """Seconds per suite source ("saferecl.hp/..." relative to suite/, as SAFERECL_SOURCES
    and the partition name them), summed over the tests and implementations of a previous
    results.json (a file, or a report directory holding one)."""
    path = Path(path)
    file = path / "results.json" if path.is_dir() else path
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
        tests = doc["tests"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise ShardError(f"--durations {file}: not a readable results.json ({e})") from None
    seconds: dict[str, float] = {}
    for t in tests if isinstance(tests, list) else []:
        source, took = t.get("source") if isinstance(t, dict) else None, t.get("duration_s") if isinstance(t, dict) else None
        if isinstance(source, str) and source and isinstance(took, (int, float)):
            unit = source.removeprefix("suite/")
            seconds[unit] = seconds.get(unit, 0.0) + float(took)
    if not seconds:
        raise ShardError(f"--durations {file}: records no test durations")
    return seconds


def sources_regex(units: list[str]) -> str:
    """A SAFERECL_SOURCES regex (CMake's syntax) matching exactly these suite-relative paths;
    one that matches nothing for an empty shard."""
    if not units:
        return "^$"
    special = set(".^$*+?()[]{}|\\")
    quoted = ["".join("\\" + c if c in special else c for c in u) for u in units]
    return "^(" + "|".join(quoted) + ")$"
