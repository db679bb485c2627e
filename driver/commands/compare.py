"""./conformance compare OLD NEW: regressions and progressions between two runs (report
directories or their results.json), printed as Markdown (for a CI job summary), optionally
also written as a file and as a page. Exit status 1 on a regression (reports/compare.py)."""

from __future__ import annotations

import sys

from driver.errors import EXIT_ENVIRONMENT, EXIT_USAGE
from reports import compare as cmp
from reports.text import write_atomically


def command(args) -> int:
    renames = [pair.split("=", 1) for pair in args.as_implementation or []]
    if any(len(pair) != 2 or not all(pair) for pair in renames):
        print(f"conformance compare: --as takes OLD=NEW implementation names, got {args.as_implementation}",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        old = cmp.read_side(args.old)
        for old_name, new_name in renames:
            old = cmp.as_implementation(old, old_name, new_name)
        comparison = cmp.compare(old, cmp.read_side(args.new))
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
