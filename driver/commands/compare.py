"""./conformance compare OLD NEW: regressions and progressions between two runs (report
directories or their results.json), printed as Markdown (for a CI job summary), optionally
also written as a file and as a page. Exit status 1 on a regression (reports/compare.py)."""

from __future__ import annotations

import sys

from driver.errors import EXIT_ENVIRONMENT, EXIT_USAGE
from reports import compare as cmp
from reports.text import write_atomically


def command(args) -> int:
    try:
        comparison = cmp.compare(*cmp.read_sides(args.old, args.new, args.as_implementation))
    except ValueError as e:
        print(f"conformance compare: {e}", file=sys.stderr)
        return EXIT_USAGE
    except cmp.Unreadable as e:
        print(f"conformance compare: {e}", file=sys.stderr)
        return EXIT_USAGE if not (args.old.exists() and args.new.exists()) else EXIT_ENVIRONMENT
    text = cmp.markdown(comparison)
    sys.stdout.write(text)
    if args.markdown:
        write_atomically(args.markdown, text)
    if args.html:
        write_atomically(args.html, cmp.html(comparison))
        print(f"page: {args.html}")
    return comparison.exit_status
