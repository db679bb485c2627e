"""python3 -m reports DIR [--title TEXT]: (re)writes results.json, summary.md and report.html
of a report directory. Exit status 0 when they were written (whatever the verdict: see
results.json's "conforming"), 2 on a usage error, 3 when they could not be written."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EXIT_OK, EXIT_USAGE, EXIT_BROKEN = 0, 2, 3


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m reports", description=__doc__.split("\n\n")[0],
        epilog="Exit status: 0 when the three files were written, 2 on a usage error, "
               "3 when they could not be written.")
    parser.add_argument("report_dir", type=Path, help="a report directory (reports/out/<run>)")
    parser.add_argument("--title", help="page and summary title (default: saferecl conformance)")
    args = parser.parse_args(argv)  # exits 2 with the usage on an error
    if not args.report_dir.is_dir():
        print(f"python3 -m reports: {args.report_dir} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    try:
        import jinja2  # noqa: F401  (Debian: python3-jinja2)
    except ImportError:
        print("python3 -m reports: needs Jinja2 (apt-get install python3-jinja2, and run "
              "Debian's /usr/bin/python3)", file=sys.stderr)
        return EXIT_BROKEN
    from reports.index import InputProblem
    from reports.render import write_reports
    try:
        write_reports(args.report_dir, args.title)
    except (InputProblem, OSError) as e:
        print(f"python3 -m reports: {e}", file=sys.stderr)
        return EXIT_BROKEN
    print(args.report_dir / "report.html")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
