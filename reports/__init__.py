"""Reports of a saferecl run: readers of the run outputs, and writers of the reports.

A run of `./conformance` leaves a report directory holding what the build and CTest wrote
(index.json, junit.xml, run.json, implementations.json, build-failures.json, bench.json,
mutants.json).  This package reads those files, classifies every test into a verdict, maps
the tests onto the requirement rows of reports/catalog/requirements.json, and writes
results.json, summary.md, report.html and the benchmark table.  It never reads the suite's
sources: the test index (index.json, written once by the build) says what every test is.

The package never imports `driver`; the driver imports it (see /work/coord/TOOLING.md).
The entry point `write_reports` is defined in reports.render and re-exported here lazily,
so that `reports.protocol` can be imported without Jinja2.
"""


def write_reports(*args, **kwargs):
    """See reports.render.write_reports."""
    from reports.render import write_reports as write

    return write(*args, **kwargs)
