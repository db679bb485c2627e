"""Scaling curves of a benchmark run and their charts (reports/README.md, "Benchmarks").

A curve is a family of bench rows that differ only in one swept quantity:
  * "<name>/<quantity>:<value>" rows (suite/bench SAFERECL_BENCH_CURVE), e.g.
    hp/reset_protection/live:1 ... live:10000;
  * or one name measured at three or more thread counts (rcu/lock_unlock at 1, 2, 4, 8).

Some curves carry a promise of the standard: H34 says reset_protection and swap take constant
time, so their cost must not grow with the number of live hazard pointers. A curve is judged
flat when its last point costs at most FLAT_TOLERANCE times its first (noise on a quiet machine
stays well inside that; a scan of the live hazard pointers, linear in their count, exceeds it
by orders of magnitude at 10,000). A promised-flat curve that grows is a QoI finding.

The charts are computed here as geometry (log-log: the swept quantities span decades, and the
implementations' costs too) and drawn by templates/bench_charts.html.j2 as inline SVG: the
page stays one self-contained file with no script.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from reports.bench import BenchTable
from reports.stats import format_ns

SWEPT = re.compile(r"^(?P<family>.+)/(?P<quantity>[a-z_]+):(?P<value>\d+)$")
FLAT_TOLERANCE = 2.0
# Families whose cost the standard promises not to grow with the swept quantity.
FLAT_PROMISES = {
    ("hp/reset_protection", "live"):
        "H34 [saferecl.hp.holder.mem]/10, /13: reset_protection takes constant time",
    ("hp/swap", "live"): "H34 [saferecl.hp.holder.mem]/15: swap takes constant time",
}
QUANTITY_LABELS = {"live": "live hazard pointers", "readers": "reader threads",
                   "region_us": "region length (µs)", "threads": "threads"}

# Chart geometry, in SVG user units.
WIDTH, HEIGHT = 460, 250
LEFT, RIGHT, TOP, BOTTOM = 62, 118, 14, 38
# Series colours, distinguishable in print and for the common colour-vision deficiencies.
PALETTE = ["#0b5cad", "#c2410c", "#15803d", "#7e22ce", "#a16207", "#0e7490", "#be185d", "#4b5563"]


@dataclass
class Flatness:
    impl: str
    flat: bool
    first: tuple[int, float]  # (quantity, median ns)
    last: tuple[int, float]

    @property
    def growth(self) -> float:
        return self.last[1] / self.first[1] if self.first[1] > 0 else math.inf

    def describe(self) -> str:
        return (f"{self.impl}: {format_ns(self.first[1])} at {self.first[0]}, "
                f"{format_ns(self.last[1])} at {self.last[0]} ({self.growth:.2f}×)")


@dataclass
class Curve:
    family: str
    quantity: str
    clock: str  # "cpu" or "real"
    xs: list[int] = field(default_factory=list)
    series: dict[str, list[float | None]] = field(default_factory=dict)  # impl -> median per x
    promise: str = ""
    flatness: list[Flatness] = field(default_factory=list)
    colours: dict[str, str] = field(default_factory=dict)  # impl -> its colour in every chart
    measure: str = "time"  # "time" (median ns per operation) or "peak unreclaimed" (objects)
    timeouts: dict[str, list[int]] = field(default_factory=dict)  # impl -> xs it timed out at

    @property
    def key(self) -> str:
        """Unique among a run's curves: the page's anchor and the chart file's name."""
        return f"{self.family}-{self.quantity}" + ("" if self.measure == "time" else f"-{self.measure}")

    @property
    def label(self) -> str:
        return QUANTITY_LABELS.get(self.quantity, self.quantity)

    @property
    def grows(self) -> list[Flatness]:
        return [f for f in self.flatness if not f.flat]


def colours_of(table: BenchTable) -> dict[str, str]:
    """One colour per implementation, the same in every chart of the page."""
    return {impl: PALETTE[n % len(PALETTE)] for n, impl in enumerate(table.impls)}


def curve_points(table: BenchTable) -> dict[tuple[str, str], dict[int, int]]:
    """(family, quantity) -> {value: row index} for every swept row of the table."""
    families: dict[tuple[str, str], dict[int, int]] = {}
    by_name: dict[str, dict[int, int]] = {}
    for index, (name, threads) in enumerate(table.rows):
        m = SWEPT.match(name)
        if m:
            families.setdefault((m["family"], m["quantity"]), {})[int(m["value"])] = index
        else:
            by_name.setdefault(name, {})[threads] = index
    for name, per_threads in by_name.items():
        if len(per_threads) >= 3:
            families[(name, "threads")] = per_threads
    return families


def judge_flatness(curve: Curve) -> list[Flatness]:
    """Per implementation with at least two points: first against last point measured."""
    out = []
    for impl, values in curve.series.items():
        points = [(x, v) for x, v in zip(curve.xs, values) if v is not None]
        if len(points) >= 2:
            first, last = points[0], points[-1]
            out.append(Flatness(impl, last[1] <= FLAT_TOLERANCE * first[1], first, last))
    return out


def measured(cell, measure: str) -> float | None:
    if cell is None or cell.status != "ok":
        return None
    value = cell.median_ns if measure == "time" else cell.peak_unreclaimed
    return value if value else None


def bench_curves(table: BenchTable) -> list[Curve]:
    """Every family's time curve, followed by its peak-unreclaimed curve when it counts one."""
    curves = []
    for (family, quantity), points in curve_points(table).items():
        xs = sorted(points)
        for measure in ("time", "peak unreclaimed"):
            curve = Curve(family, quantity, table.clocks[points[xs[0]]] or "cpu", xs,
                          colours=colours_of(table), measure=measure,
                          promise=FLAT_PROMISES.get((family, quantity), "") if measure == "time" else "")
            for impl in table.impls:
                values = [measured(table.cells.get((points[x], impl)), measure) for x in xs]
                timed_out = [x for x in xs if measure == "time" and
                             getattr(table.cells.get((points[x], impl)), "status", "") == "timeout"]
                if any(v is not None for v in values) or timed_out:
                    curve.series[impl] = values
                if timed_out:
                    curve.timeouts[impl] = timed_out
            if curve.series:
                if curve.promise:
                    curve.flatness = judge_flatness(curve)
                curves.append(curve)
    return curves


# ----------------------------------------------------------------------------- charts

@dataclass
class Axis:
    low: float  # log10 of the axis' ends
    high: float
    start: float  # pixels
    end: float

    def at(self, value: float) -> float:
        span = self.high - self.low or 1.0
        return round(self.start + (math.log10(value) - self.low) / span * (self.end - self.start), 1)


def decades(values: list[float]) -> tuple[float, float]:
    low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    return low, (high if high > low else low + 1)


def tick_label(exponent: int, nanoseconds: bool) -> str:
    """A decade's label: a duration, or a plain count."""
    value = 10.0 ** exponent
    if nanoseconds:
        return format_ns(value)
    return f"{value:,.0f}" if value >= 1 else f"{value:g}"


def chart(curve: Curve) -> dict:
    """The SVG geometry of one curve: axes with decade ticks, one polyline per implementation,
    and a cross on the top edge where an implementation timed out (its result there: a
    verdict, drawn above every measured point)."""
    values = [v for vs in curve.series.values() for v in vs if v is not None] or [1.0]
    x_low, x_high = decades([float(x) for x in curve.xs])
    y_low, y_high = decades(values)
    x_axis = Axis(x_low, x_high, LEFT, WIDTH - RIGHT)
    y_axis = Axis(y_low, y_high, HEIGHT - BOTTOM, TOP)
    lines = []
    for n, (impl, vs) in enumerate(curve.series.items()):
        points = [(x_axis.at(x), y_axis.at(v), x, v) for x, v in zip(curve.xs, vs) if v is not None]
        shown = format_ns if curve.measure == "time" else (lambda v: f"{v:,.0f} objects")
        lines.append({"impl": impl, "colour": curve.colours.get(impl, PALETTE[n % len(PALETTE)]),
                      "points": " ".join(f"{px},{py}" for px, py, _, _ in points),
                      "dots": [{"x": px, "y": py, "title": f"{impl}: {shown(v)} at {x}"}
                               for px, py, x, v in points],
                      "timeouts": [{"x": x_axis.at(x), "y": TOP, "title": f"{impl}: timed out at {x}"}
                                   for x in curve.timeouts.get(impl, [])],
                      "legend_y": TOP + 14 * n + 8})
    return {"width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT,
            "top": TOP, "bottom": HEIGHT - BOTTOM,
            "x_ticks": [{"at": x_axis.at(10.0 ** e), "label": tick_label(e, False)}
                        for e in range(int(x_low), int(x_high) + 1)],
            "y_ticks": [{"at": y_axis.at(10.0 ** e), "label": tick_label(e, curve.measure == "time")}
                        for e in range(int(y_low), int(y_high) + 1)],
            "lines": lines}


def comparison_chart(table: BenchTable) -> dict | None:
    """One-thread medians of the cases that are not curves, as grouped horizontal bars on a
    log scale (costs range from a nanosecond to milliseconds): one group per case."""
    swept = {i for points in curve_points(table).values() for i in points.values()}
    rows = [(i, name) for i, (name, threads) in enumerate(table.rows)
            if threads <= 1 and i not in swept]
    groups = []
    for i, name in rows:
        bars = [(impl, table.cells[(i, impl)].median_ns) for impl in table.impls
                if (i, impl) in table.cells and table.cells[(i, impl)].status == "ok"
                and table.cells[(i, impl)].median_ns]
        if bars:
            groups.append((name, bars))
    if not groups:
        return None
    low, high = decades([v for _, bars in groups for _, v in bars])
    label_width, bar_height, gap = 190, 9, 8
    width = 640
    axis = Axis(low, high, label_width, width - 70)
    colour = colours_of(table)
    y = 10
    out = []
    for name, bars in groups:
        group = {"name": name, "y": y + len(bars) * bar_height / 2 + 4, "bars": []}
        for impl, v in bars:
            group["bars"].append({"impl": impl, "y": y, "width": max(1.0, round(axis.at(v) - label_width, 1)),
                                  "colour": colour[impl], "label": format_ns(v),
                                  "label_x": round(axis.at(v) + 3, 1)})
            y += bar_height
        out.append(group)
        y += gap
    shown = [impl for impl in table.impls if any(b["impl"] == impl for g in out for b in g["bars"])]
    legend_rows = (len(shown) + 3) // 4
    return {"width": width, "height": y + 28 + 14 * legend_rows, "left": label_width, "axis_y": y,
            "ticks": [{"at": axis.at(10.0 ** e), "label": tick_label(e, True)}
                      for e in range(int(low), int(high) + 1)],
            "groups": out,
            "legend": [{"impl": impl, "colour": colour[impl], "x": label_width + 110 * (n % 4),
                        "y": y + 26 + 14 * (n // 4)} for n, impl in enumerate(shown)]}
