"""The lifecycle of a report directory, for every command that writes one.

A command writes into `<base>/<timestamp>-<kind>.partial/`; `publish()` renames it to its
final name in one step and points `<base>/latest` at it, so a reader never sees a half-written
report and an interrupted run leaves only a `.partial` directory behind. `render()` has the
reports package write results.json, summary.md and report.html from what is there."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import traceback
from pathlib import Path

from driver.console import say

PARTIAL_SUFFIX = ".partial"


def _final_path(base: Path, kind: str) -> Path:
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = base / f"{stamp}-{kind}"
    n = 1
    while path.exists() or path.with_name(path.name + PARTIAL_SUFFIX).exists():
        n += 1
        path = base / f"{stamp}-{kind}-{n}"
    return path


class ReportDir:
    def __init__(self, base: Path, kind: str):
        base.mkdir(parents=True, exist_ok=True)
        self.final = _final_path(base, kind)
        self.path = self.final.with_name(self.final.name + PARTIAL_SUFFIX)
        self.path.mkdir()
        self.published = False

    def __truediv__(self, name: str) -> Path:
        """The path of a file in the directory, where it is now (partial or published)."""
        return (self.final if self.published else self.path) / name

    def write_json(self, name: str, value) -> None:
        (self / name).write_text(json.dumps(value, indent=1))

    def copy_in(self, source: Path, name: str) -> None:
        shutil.copy(source, self / name)

    def render(self, title: str | None = None) -> dict | None:
        """Has the reports package write the reports; returns results.json, or None when
        they could not be written (said why)."""
        import reports  # imports Jinja2: only when a report is written
        try:
            reports.write_reports(self.path, title=title)
        except Exception as e:  # a report problem must not lose the run's outputs
            say(f"   writing the reports failed: {e}\n{traceback.format_exc(limit=4)}")
            return None
        results = self.path / "results.json"
        return json.loads(results.read_text()) if results.is_file() else None

    def publish(self) -> Path:
        """Makes the finished directory visible in one step, then points `latest` at it."""
        self.path.rename(self.final)
        self.published = True
        latest = self.final.parent / "latest"
        tmp = self.final.parent / ".latest.tmp"
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        tmp.symlink_to(self.final.name)
        tmp.replace(latest)
        return self.final
