"""bench.json as a table (reports/README.md, "bench.json"), shared by report.html and
summary.md: one row per benchmark and thread count in the file's order, one column per
implementation (bench.json's "implementations" first)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from reports.text import fixed


@dataclass
class BenchCell:
    status: str = ""  # ok, n/a, timeout, failed, unavailable, not built
    reason: str = ""
    median_ns: float | None = None
    ratio: float | None = None  # median / the reference's median, measured in the same run
    repetitions: int = 0
    peak_unreclaimed: float | None = None  # the case's counter (objects), median of the samples


@dataclass
class BenchTable:
    impls: list[str] = field(default_factory=list)
    rows: list[tuple[str, int]] = field(default_factory=list)  # benchmark, threads (0: not given)
    clocks: list[str] = field(default_factory=list)  # per row: "cpu", "real" or ""
    cells: dict[tuple[int, str], BenchCell] = field(default_factory=dict)  # (row index, impl)
    unavailable: dict[str, str] = field(default_factory=dict)  # impl -> why it has no numbers
    repetitions: int = 0  # of the run (0: not given); a cell with fewer says so
    setup: str = ""  # repetitions, order, load average: how the numbers were taken


def text_of(obj: object, key: str) -> str:
    if not isinstance(obj, dict) or obj.get(key) is None:
        return ""
    value = obj[key]
    return value if isinstance(value, str) else json.dumps(value)


def number_of(obj: object, key: str) -> float | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def load_text(load: object) -> str:
    if not isinstance(load, list):
        return ""
    return " ".join(fixed(v, 2) if isinstance(v, (int, float)) else json.dumps(v) for v in load)


def bench_table(bench: object) -> BenchTable:
    table = BenchTable()
    entries = bench.get("benchmarks") if isinstance(bench, dict) and "benchmarks" in bench else bench
    if isinstance(bench, dict) and isinstance(bench.get("implementations"), list):
        table.impls = [n for n in (text_of(i, "name") for i in bench["implementations"]) if n]
    for b in entries if isinstance(entries, list) else []:
        name = text_of(b, "benchmark") or text_of(b, "name")
        impl = text_of(b, "implementation")
        threads = int(number_of(b, "threads") or 0)
        row = (name, threads)
        if row not in table.rows:
            table.rows.append(row)
            table.clocks.append(text_of(b, "time"))
        if impl not in table.impls:
            table.impls.append(impl)
        cell = BenchCell(median_ns=number_of(b, "median_ns"), status=text_of(b, "status"),
                         reason=text_of(b, "reason"), ratio=number_of(b, "ratio_vs_reference"),
                         repetitions=int(number_of(b, "repetitions") or 0),
                         peak_unreclaimed=number_of(b, "peak_unreclaimed"))
        cell.status = cell.status or ("ok" if cell.median_ns is not None else "n/a")
        if cell.status in ("unavailable", "not built"):
            table.unavailable[impl] = f"{cell.status}: {cell.reason}"
        table.cells[(table.rows.index(row), impl)] = cell
    if isinstance(bench, dict):
        setup = []
        repetitions = number_of(bench, "repetitions")
        if repetitions is not None:
            table.repetitions = int(repetitions)
            setup.append(f"{fixed(repetitions, 0)} repetitions per case and implementation")
        if number_of(bench, "min_time_s") is not None:
            setup.append(f"at least {text_of(bench, 'min_time_s')} s each")
        if text_of(bench, "order"):
            setup.append(f"order {text_of(bench, 'order')}")
        load = bench.get("load_average")
        if isinstance(load, dict):
            setup.append(f"load average (1, 5, 15 min) before {load_text(load.get('before'))}, "
                         f"after {load_text(load.get('after'))}")
        table.setup = "; ".join(setup)
    return table
