"""Debian's Chromium renders the "mixed" report from disk, headless: a screenshot of the
page (kept at reports/out/selftest/report.png for people to look at) and the rendered DOM,
which must show the buggy × H30 cell as non-conforming with its failure output."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
SELFTEST = Path(__file__).resolve().parents[1] / "out" / "selftest"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def chromium(*args: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:  # a fresh profile every time
        return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def page(rendered) -> Path:
    assert CHROMIUM.is_file(), "Debian's chromium is installed (apt-get install chromium)"
    SELFTEST.mkdir(parents=True, exist_ok=True)
    shutil.copy(rendered("mixed") / "report.html", SELFTEST / "report.html")
    return SELFTEST / "report.html"


def test_screenshot(page):
    png = page.with_suffix(".png")
    png.unlink(missing_ok=True)
    shot = chromium("--window-size=1366,2400", f"--screenshot={png}", page.as_uri())
    assert shot.returncode == 0, shot.stderr[-500:]
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20000, \
        f"a screenshot of the rendered page is written to {png}"


def test_rendered_dom_shows_the_failing_cell(page):
    dom = chromium("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-500:]
    cell = re.search(r'<td id="cell-buggy-H30" class="([^"]*)" data-status="([^"]*)">(.*?)</td>', dom.stdout, re.S)
    assert cell is not None, "the rendered DOM has the buggy × H30 cell"
    assert "s-bad" in cell[1] and cell[2] == "non-conforming", "the cell is coloured non-conforming"
    assert "FAIL" in cell[3] and "CHECK( !ok )" in cell[3], "the cell holds the verdict and the failure output"
    assert "NOT conforming" in dom.stdout, "the rendered page states the verdict"
