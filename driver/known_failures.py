"""The known failures a run applies (`adapters/<impl>/expectations.json`, or `--expect FILE`)
and `--update-expectations`, which writes them back from the run (reports/expectations.py has
the format and the rules; this module only finds, checks and writes the files).

The files are read and checked before anything is built, so a malformed file is a usage
error in seconds with the file, the entry and the problem named. The run's report directory
gets `expectations.json`, every entry in effect, so that the reports (and a re-render, and a
merge of shards) apply exactly what the run applied."""

from __future__ import annotations

import json
from pathlib import Path

from driver.errors import UsageError
from driver.paths import ADAPTERS
from reports import expectations as ex

FILE_NAME = "expectations.json"


def adapter_file(impl: str) -> Path:
    return ADAPTERS / impl / FILE_NAME


def read(impls: list[str], expect: Path | None) -> list[tuple[Path, list[ex.Expectation]]]:
    """(file, entries) of every file in effect: `expect` alone when given (it may name tests
    of several implementations), else each selected adapter's own file when it has one."""
    try:
        if expect is not None:
            return [(expect, ex.read_file(expect))]
        return [(adapter_file(i), ex.read_file(adapter_file(i), i))
                for i in impls if adapter_file(i).is_file()]
    except ex.ExpectationsError as e:
        raise UsageError(f"expectations: {e}") from None


def combined(files: list[tuple[Path, list[ex.Expectation]]]) -> dict:
    return ex.combined_document(files)


def observed(results: dict) -> list[ex.Observed]:
    """The tests of a results.json document, as the expectations see them."""
    out = []
    for t in results.get("tests", []):
        stable, para = t.get("stable_name") or "", t.get("paragraph") or ""
        out.append(ex.Observed(test=t.get("ctest_name") or f"{t['implementation']}/{t['name']}",
                               verdict=t["verdict"], paragraph=stable + (f"/{para}" if para else ""),
                               headline=t.get("headline") or ""))
    return out


def update(results: dict, impls: list[str], expect: Path | None, sanitizer: str) -> list[Path]:
    """--update-expectations: rewrites `expect`, or each selected implementation's own file,
    from the run's results; returns the files written. An implementation with no failure and
    no file gets none."""
    tests = observed(results)
    targets: list[tuple[Path, str | None, list[ex.Observed]]]
    if expect is not None:
        targets = [(expect, None, tests)]
    else:
        targets = [(adapter_file(i), i, [t for t in tests if t.test.startswith(i + "/")]) for i in impls]
    written = []
    for path, impl, mine in targets:
        before = ex.read_file(path, impl) if path.is_file() else []
        after = ex.updated(before, mine, sanitizer)
        if not after and not path.is_file():
            continue
        text = ex.dumps(ex.document(after, impl))
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def exit_decision(results: dict) -> bool:
    """True when the run passes: nothing unexpected under its expectations, or, for a
    directory without them, conforming."""
    if "expectations" in results:
        return bool(results["expectations"].get("nothing_unexpected"))
    return bool(results.get("conforming"))


def summary_line(results: dict) -> str:
    e = results.get("expectations")
    if not e:
        return ""
    counts = e.get("counts", {})
    said = "nothing unexpected" if e.get("nothing_unexpected") else "UNEXPECTED RESULTS"
    return (f"expectations: {said}: {counts.get(ex.EXPECTED_FAIL, 0)} expected failure(s), "
            f"{counts.get(ex.NEW_FAILURE, 0)} new failure(s), {counts.get(ex.UNEXPECTED_PASS, 0)} "
            f"unexpected pass(es)" + (f"; {'; '.join(e['problems'])}" if e.get("problems") else ""))


def dump(doc: dict) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
