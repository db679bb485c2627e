"""Scaling curves (reports/curves.py): families are found from the case names, promised-flat
curves are judged (H34: a hazard pointer scan that grows with the live count is a QoI finding),
and each curve becomes an inline SVG chart."""

from __future__ import annotations

import re

from reports.bench import bench_table
from reports.curves import FLAT_TOLERANCE, bench_curves, chart, comparison_chart


def bench(rows: dict[tuple[str, int], dict[str, float | None]]) -> dict:
    entries = []
    for (name, threads), cells in rows.items():
        for impl, median in cells.items():
            e = {"benchmark": name, "threads": threads, "implementation": impl, "time": "cpu"}
            e.update({"status": "ok", "median_ns": median} if median else {"status": "n/a", "reason": "limit"})
            entries.append(e)
    return {"implementations": [{"name": "reference"}, {"name": "scan"}], "benchmarks": entries}


SWEEP = {("hp/reset_protection/live:1", 1): {"reference": 0.9, "scan": 2.0},
         ("hp/reset_protection/live:100", 1): {"reference": 0.92, "scan": 150.0},
         ("hp/reset_protection/live:10000", 1): {"reference": 0.95, "scan": None},
         ("hp/protect_reset", 1): {"reference": 1.0, "scan": 3.0},
         ("hp/protect_reset", 2): {"reference": 1.1, "scan": 3.3}}


def test_a_promised_flat_curve_is_judged_per_implementation():
    [curve] = bench_curves(bench_table(bench(SWEEP)))
    assert (curve.family, curve.quantity, curve.xs) == ("hp/reset_protection", "live", [1, 100, 10000])
    assert "H34" in curve.promise and "[saferecl.hp.holder.mem]/10" in curve.promise
    judged = {f.impl: f for f in curve.flatness}
    assert judged["reference"].flat and judged["reference"].last == (10000, 0.95)
    assert not judged["scan"].flat, "a cost 75x higher at 100 live hazard pointers grows"
    assert judged["scan"].last == (100, 150.0), "judged up to its last measured point (n/a after)"
    assert [f.impl for f in curve.grows] == ["scan"]


def test_the_tolerance_is_the_boundary():
    rows = {("hp/swap/live:2", 1): {"reference": 1.0, "scan": 1.0},
            ("hp/swap/live:10000", 1): {"reference": FLAT_TOLERANCE, "scan": FLAT_TOLERANCE * 1.01}}
    [curve] = bench_curves(bench_table(bench(rows)))
    assert {f.impl: f.flat for f in curve.flatness} == {"reference": True, "scan": False}


def test_three_thread_counts_make_a_curve_two_do_not():
    rows = {("rcu/lock_unlock", t): {"reference": 1.0, "scan": 5.0} for t in (1, 2, 4, 8)}
    rows |= {("hp/protect_reset", t): {"reference": 1.0, "scan": 3.0} for t in (1, 2)}
    [curve] = bench_curves(bench_table(bench(rows)))
    assert (curve.family, curve.quantity, curve.xs, curve.promise) == ("rcu/lock_unlock", "threads", [1, 2, 4, 8], "")


def test_the_chart_puts_higher_costs_higher_and_larger_counts_further_right():
    [curve] = bench_curves(bench_table(bench(SWEEP)))
    g = chart(curve)
    scan = next(line for line in g["lines"] if line["impl"] == "scan")
    (x1, y1), (x2, y2) = [(d["x"], d["y"]) for d in scan["dots"]]
    assert x2 > x1 and y2 < y1, "SVG y grows downwards: the dearer point is drawn higher"
    assert g["left"] <= x1 and x2 <= g["right"] and g["top"] <= y2 and y1 <= g["bottom"]
    assert [t["label"] for t in g["x_ticks"]] == ["1", "10", "100", "1,000", "10,000"]


def test_the_comparison_leaves_out_curves_and_other_thread_counts():
    comparison = comparison_chart(bench_table(bench(SWEEP)))
    assert [g["name"] for g in comparison["groups"]] == ["hp/protect_reset"]
    assert [b["impl"] for b in comparison["groups"][0]["bars"]] == ["reference", "scan"]
    ref, scan = comparison["groups"][0]["bars"]
    assert scan["width"] > ref["width"], "the dearer implementation has the longer bar"


def test_the_bench_page_draws_the_curves(rendered):
    out = rendered("bench")
    page = (out / "report.html").read_text()
    figure = re.search(r'<figure id="curve-hp_reset_protection-live">(.*?)</figure>', page, re.S)
    assert figure, "the H34 curve has a chart"
    assert figure[1].count("<polyline") == 2 and "<svg" in figure[1]
    assert "QoI: grows" in figure[1] and "peer: 6.00 ns at 1, 6.00 µs at 10000" in figure[1]
    assert re.search(r'<figure id="curve-rcu_lock_unlock-threads">', page)
    assert "<script" not in page, "charts need no script"
    summary = (out / "summary.md").read_text()
    assert "- flat: reference: 0.90 ns at 1, 0.95 ns at 10000 (1.06×)" in summary
    assert "**QoI: grows**: peer" in summary


def test_a_counted_peak_gets_its_own_curve():
    data = bench({("hp/retire/live:1", 1): {"reference": 24.0, "scan": 60.0},
                  ("hp/retire/live:10000", 1): {"reference": 70.0, "scan": 120.0}})
    for e in data["benchmarks"]:
        e["peak_unreclaimed"] = 1000.0 if "live:1/" in e["benchmark"] + "/" else 20000.0
    time, peak = bench_curves(bench_table(data))
    assert (time.measure, peak.measure) == ("time", "peak unreclaimed")
    assert peak.series["reference"] == [1000.0, 20000.0] and not peak.promise
    assert [t["label"] for t in chart(peak)["y_ticks"]] == ["1,000", "10,000", "100,000"]


def test_each_curve_is_also_a_standalone_svg_file(rendered):
    charts = rendered("bench") / "charts"
    names = sorted(p.name for p in charts.glob("*.svg"))
    assert names == ["hp_reset_protection-live.svg", "rcu_lock_unlock-threads.svg"]
    svg = (charts / "hp_reset_protection-live.svg").read_text()
    assert svg.lstrip().startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in svg
    assert svg.count("<polyline") == 2 and "live hazard pointers" in svg


def test_a_timeout_is_drawn_as_a_cross_on_the_top_edge():
    entries = [{"benchmark": f"rcu/synchronize/readers:{n}", "threads": 1, "implementation": impl,
                "time": "real", "status": "ok", "median_ns": 1e6 * n}
               for n in (1, 16, 64) for impl in ("reference", "scan") if (impl, n) != ("scan", 64)]
    entries.append({"benchmark": "rcu/synchronize/readers:64", "threads": 1, "implementation": "scan",
                    "time": "real", "status": "timeout", "reason": "did not finish within 20 s"})
    [curve] = bench_curves(bench_table({"benchmarks": entries}))
    assert curve.timeouts == {"scan": [64]} and curve.series["scan"][-1] is None
    g = chart(curve)
    scan = next(line for line in g["lines"] if line["impl"] == "scan")
    [cross] = scan["timeouts"]
    assert cross["y"] == g["top"] and cross["x"] == max(d["x"] for d in scan["dots"] + [cross])
    assert "timed out at 64" in cross["title"]
