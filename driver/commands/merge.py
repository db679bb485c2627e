"""./conformance merge DIR...: the report directories of the shards of one run (`./conformance
run --shard K/N` on a CI matrix) become one report directory, as the unsharded run would have
written it (reports/merge.py), published like a run's under --out with `latest` pointing at
it. Shards of different runs, a missing or repeated shard: refused with the reason, exit
status 2, nothing published. Otherwise the exit status is the run's: 0 when nothing
unexpected happened (or, without expectations, when it conforms)."""

from __future__ import annotations

import shutil

from driver import known_failures
from driver.console import say
from driver.errors import EXIT_ENVIRONMENT, EXIT_NONCONFORMING, EXIT_OK, EXIT_USAGE
from driver.report_dir import ReportDir
from reports.merge import MergeRefused, merge


def command(args) -> int:
    report = ReportDir(args.out, "merged")
    try:
        shards = merge(args.dirs, report.path)
    except MergeRefused as e:
        shutil.rmtree(report.path)
        say(f"conformance merge: refused: {e}")
        return EXIT_USAGE
    say(f"merging {len(shards)} shard(s) of {shards[0].n}: " + ", ".join(str(s.dir) for s in shards))
    results = report.render()
    final = report.publish()
    if results is None:
        return EXIT_ENVIRONMENT
    say((final / "summary.md").read_text())
    say(f"report: {final / 'report.html'}")
    say(f"reports: {final}  (latest: {final.parent / 'latest'})")
    return EXIT_OK if known_failures.exit_decision(results) else EXIT_NONCONFORMING
