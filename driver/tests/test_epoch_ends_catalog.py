"""reports/catalog/epoch_ends.json names real tests: each end's core pattern matches a core
(or cxx29) test of the suite and its qoi pattern a qoi test (the report's coverage would otherwise
show a gap that is only a typo)."""

import json
import re

import pytest

from driver.index import index_writer
from driver.paths import ROOT, SUITE

ENDS = json.loads((ROOT / "reports" / "catalog" / "epoch_ends.json").read_text())["ends"]


def suite_cases():
    writer = index_writer()
    for path in sorted(SUITE.glob("saferecl.hp/**/*.pass.cpp")):
        yield from writer.scan_source(str(path.relative_to(SUITE)), path.read_text()).cases


CASES = list(suite_cases())


@pytest.mark.parametrize("end", ENDS, ids=[e["end"] for e in ENDS])
def test_each_epoch_end_has_its_core_and_qoi_tests(end):
    for slot, tiers in (("core", ("core", "cxx29")), ("qoi", ("qoi",))):
        pattern = re.compile(end[slot])
        assert [c.name for c in CASES if c.tier in tiers and pattern.search(c.name)], (end["end"], slot)
