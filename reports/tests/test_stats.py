"""The statistics of the benchmark numbers and the one duration format."""

from __future__ import annotations

import pytest

from reports.stats import format_ns, median, ratio


def test_median():
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert median([5.0]) == 5.0
    with pytest.raises(ValueError):
        median([])


def test_ratio():
    assert ratio(12.0, 1.5) == 8.0
    assert ratio(1.0, 3.0) == 0.333
    assert ratio(1.0, None) is None and ratio(1.0, 0.0) is None


@pytest.mark.parametrize("ns,text", [
    (1.523, "1.52 ns"), (12.04, "12.0 ns"), (999.4, "999 ns"), (999.5, "1.00 µs"),
    (33100.0, "33.1 µs"), (45000.0, "45.0 µs"), (999.5e3, "1.00 ms"), (10.3e6, "10.3 ms"),
    (123.4e6, "123 ms"),
])
def test_format_ns(ns, text):
    assert format_ns(ns) == text
