"""./conformance compare OLD NEW: regressions and progressions between two runs (report
directories or their results.json), printed as Markdown (for a CI job summary), optionally
also written as a file and as a page. Exit status 1 on a regression (reports/compare.py)."""

from __future__ import annotations

import sys

from driver.errors import EXIT_ENVIRONMENT, EXIT_USAGE
from reports import compare as cmp
from reports.text import write_atomically


def command(args) -> int:
    pair = args.as_implementation.split("=", 1) if args.as_implementation else None
    if pair is not None and (len(pair) != 2 or not all(pair)):
        print(f"conformance compare: --as takes OLD=NEW implementation names, got {args.as_implementation!r}",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        old, new = cmp.read_side(args.old), cmp.read_side(args.new)
        if pair:
            old, new = cmp.only_implementation(old, pair[0], pair[1]), cmp.only_implementation(new, pair[1])
        comparison = cmp.compare(old, new)
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
