"""`--shard K/N` on the driver's side: which suite sources this shard builds and runs, and
the facts run.json must carry so that `./conformance merge` can tell shards of one run from
shards of different runs (the selection, the source revision). The partition itself is
reports/shards.py."""

from __future__ import annotations

import hashlib
import re
import subprocess
from pathlib import Path

from driver.errors import UsageError
from driver.paths import ROOT, SUITE
from reports import shards


def suite_sources(sources_regex: str = "") -> list[str]:
    """The suite-relative sources the battery's CMake globs (SafereclBattery.cmake), filtered
    by the run's SAFERECL_SOURCES regex as CMake filters them."""
    found = sorted(str(p.relative_to(SUITE)) for p in
                   [*SUITE.glob("saferecl.*/**/*.cpp"), *SUITE.glob("stress/**/*.cpp")])
    if sources_regex:
        try:
            wanted = re.compile(sources_regex)
        except re.error as e:
            raise UsageError(f"sources regex {sources_regex!r}: {e}") from None
        found = [s for s in found if wanted.search(s)]
    return found


def shard_sources(shard: str, sources_regex: str, durations: Path | None) -> tuple[str, int, int]:
    """(SAFERECL_SOURCES regex of the shard, its number of sources, of the selection's)."""
    try:
        k, n = shards.parse_shard(shard)
        seconds = shards.durations_from_results(durations) if durations else None
    except shards.ShardError as e:
        raise UsageError(str(e)) from None
    selection = suite_sources(sources_regex)
    mine = shards.select(selection, k, n, seconds)
    return shards.sources_regex(mine), len(mine), len(selection)


def source_revision() -> str:
    """git HEAD of the checkout, plus "+dirty:<hash>" when tracked files differ from it (the
    hash covers the diff and the names of untracked files: two dirty trees are the same
    revision only with the same changes); "" outside git."""
    def git(*args: str) -> str:
        result = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True)
        return result.stdout.decode(errors="replace") if result.returncode == 0 else ""
    head = git("rev-parse", "HEAD").strip()
    if not head:
        return ""
    changes = git("diff", "HEAD") + git("ls-files", "--others", "--exclude-standard")
    if not changes:
        return head
    return f"{head}+dirty:{hashlib.sha256(changes.encode()).hexdigest()[:12]}"
