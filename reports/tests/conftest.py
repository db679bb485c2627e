"""Shared by the reports' tests: a fixture report directory, copied and rendered."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reports import write_reports

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def render(fixture: str, work: Path) -> Path:
    """Copies fixtures/<fixture> into `work` and writes its reports there."""
    out = work / fixture
    shutil.copytree(FIXTURES / fixture, out, ignore=shutil.ignore_patterns("README.md"))
    write_reports(out)
    return out


@pytest.fixture(scope="session")
def rendered(tmp_path_factory):
    """fixture name -> its rendered directory (each rendered once per session)."""
    work = tmp_path_factory.mktemp("fixtures")
    cache: dict[str, Path] = {}

    def get(fixture: str) -> Path:
        if fixture not in cache:
            cache[fixture] = render(fixture, work)
        return cache[fixture]
    return get


def results_of(directory: Path) -> dict:
    return json.loads((directory / "results.json").read_text())
