"""The statistics of the benchmark numbers: median, ratio to the reference, and the one
way a duration in nanoseconds is written (by the driver's progress lines and by the reports'
benchmark table alike)."""

from __future__ import annotations


def median(values: list[float]) -> float:
    """The middle value; the mean of the two middle values for an even count."""
    if not values:
        raise ValueError("the median of no values")
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def ratio(value: float, reference: float | None) -> float | None:
    """value / reference, rounded to three decimals; None without a usable reference."""
    if not reference:
        return None
    return round(value / reference, 3)


def format_ns(ns: float) -> str:
    """Three significant digits in the unit that keeps the number under 1000:
    "1.52 ns", "33.1 µs", "10.3 ms"."""
    if ns >= 999.5e3:
        value, unit = ns / 1e6, "ms"
    elif ns >= 999.5:
        value, unit = ns / 1e3, "µs"
    else:
        value, unit = ns, "ns"
    decimals = 0 if value >= 99.95 else 1 if value >= 9.995 else 2
    return f"{value:.{decimals}f} {unit}"
