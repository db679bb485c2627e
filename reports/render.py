"""The entry point: one report directory in, results.json, summary.md and report.html out.

    reports.write_reports(report_dir, title=None) -> dict

reads what the build, CTest and the driver left in `report_dir` (index.json, junit.xml,
run.json, implementations.json, build-failures.json, and bench.json / mutants.json when
present), writes the three outputs there (and, for a bench run, each scaling curve as
charts/<family>-<quantity>.svg), each atomically, results.json last (its presence
means the other two are complete), and returns the results.json document: "conforming" is
the run's verdict, "implementations" the per-implementation verdicts and counts.
Raises reports.index.InputProblem when the requirement catalog is broken and NotADirectoryError
when `report_dir` is not a directory; anything wrong with a run output becomes a note in
the outputs instead, so a broken run still gets its report.
"""

from __future__ import annotations

from pathlib import Path

from reports.analyse import analyse
from reports.load import load
from reports.page import chart_files, report_html
from reports.results import results_document, results_json
from reports.summary import summary_markdown
from reports.text import write_atomically


def write_reports(report_dir: Path, title: str | None = None) -> dict:
    report_dir = Path(report_dir)
    if not report_dir.is_dir():
        raise NotADirectoryError(f"{report_dir} is not a directory")
    report = load(report_dir, title or "")
    analyse(report)
    write_atomically(report_dir / "summary.md", summary_markdown(report))
    write_atomically(report_dir / "report.html", report_html(report))
    charts = chart_files(report)
    if charts:
        (report_dir / "charts").mkdir(exist_ok=True)
        for name, svg in charts.items():
            write_atomically(report_dir / "charts" / name, svg)
    write_atomically(report_dir / "results.json", results_json(report))
    return results_document(report)
