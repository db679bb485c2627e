"""Two runs side by side: what got worse, what got better, per test, requirement row and
implementation (`./conformance compare OLD NEW`, or `python3 -m reports.compare OLD NEW`).

A vendor who changes an implementation wants the tests that went from PASS to FAIL and back,
with the paragraph they check. Each side is a report directory or its results.json
(schema saferecl-results/1); tests are matched by implementation and test name, rows by id.

  regression   a test that did not fail (PASS, NOT APPLICABLE) now fails (FAIL, TIMEOUT,
               CRASH, NOT BUILT); a requirement row whose cell got worse (conforming or n/a
               -> QoI finding -> warning -> non-conforming); an implementation that conformed
               and no longer does;
  progression  the reverse;
  changed      any other verdict change (FAIL -> CRASH, PASS -> NOT APPLICABLE, ...);
  added/removed  a test only one run has (a new test, another selection or shard).
The exit status is 1 when there is a regression, so a CI job can gate on it; 0 otherwise;
2 for a usage error and 3 when a side cannot be read. Differences in how the runs were made
(sanitizer, seed, profile, compiler, source revision) are listed first: they explain changes
without being changes.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from reports import protocol
from reports.facts import RESULTS_SCHEMA
from reports.text import md_escape, write_atomically

EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, EXIT_UNREADABLE = 0, 1, 2, 3
MAX_ITEMS = 60  # per Markdown section; the HTML page lists everything
# How bad a requirement cell is; a rise is a regression.
ROW_RANK = {"non-conforming": 4, "not-judged": 3, "warning": 2, "qoi-finding": 1}
# run.json keys whose difference explains changes between the runs.
RUN_KEYS = ("sanitizer", "profile", "stress_scale", "seed", "implementations", "compiler_version",
            "cxx_standard", "stdlib", "runtime_annotations", "source_revision", "shard", "date")


class Unreadable(Exception):
    """A side that is not a results.json of saferecl; the message says which and why."""


@dataclass
class Side:
    label: str  # the path given
    doc: dict

    @property
    def run(self) -> dict:
        run = self.doc.get("run")
        return run if isinstance(run, dict) else {}


@dataclass
class TestChange:
    kind: str  # regression | progression | changed | added | removed
    implementation: str
    name: str
    old: str  # verdict, "" when absent
    new: str
    paragraph: str = ""  # "saferecl.hp.holder.mem/5"
    rows: list[str] = field(default_factory=list)
    tier: str = ""
    headline: str = ""  # the new run's telling line of the output

    @property
    def ref(self) -> str:
        """"[saferecl.hp.holder.mem]/5", as the catalog writes references."""
        stable, _, para = self.paragraph.partition("/")
        return f"[{stable}]" + (f"/{para}" if para else "") if stable else ""


@dataclass
class RowChange:
    kind: str  # regression | progression | changed
    implementation: str
    row: str
    ref: str
    old: str
    new: str


@dataclass
class ImplementationChange:
    name: str
    old_conforming: bool | None  # None: not in that run
    new_conforming: bool | None
    old_counts: dict[str, int]
    new_counts: dict[str, int]

    @property
    def kind(self) -> str:
        if self.old_conforming and self.new_conforming is False:
            return "regression"
        if self.old_conforming is False and self.new_conforming:
            return "progression"
        return "same" if self.old_conforming == self.new_conforming else "changed"


@dataclass
class Comparison:
    old: Side
    new: Side
    tests: list[TestChange]
    rows: list[RowChange]
    implementations: list[ImplementationChange]
    run_differences: list[tuple[str, object, object]]  # (run.json key, old, new)
    unchanged: int  # tests with the same verdict in both

    def of(self, kind: str) -> list[TestChange]:
        return [c for c in self.tests if c.kind == kind]

    @property
    def regressions(self) -> int:
        return (len(self.of("regression")) + sum(1 for r in self.rows if r.kind == "regression")
                + sum(1 for i in self.implementations if i.kind == "regression"))

    @property
    def progressions(self) -> int:
        return (len(self.of("progression")) + sum(1 for r in self.rows if r.kind == "progression")
                + sum(1 for i in self.implementations if i.kind == "progression"))

    @property
    def exit_status(self) -> int:
        return EXIT_REGRESSION if self.regressions else EXIT_OK


def read_side(path: Path) -> Side:
    path = Path(path)
    file = path / "results.json" if path.is_dir() else path
    if not file.is_file():
        hint = " (a report directory without results.json: render it with python3 -m reports DIR)" \
            if path.is_dir() else ""
        raise Unreadable(f"{file}: no such file{hint}")
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise Unreadable(f"{file}: unreadable: {e}") from None
    if not isinstance(doc, dict) or doc.get("schema") != RESULTS_SCHEMA:
        got = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise Unreadable(f"{file}: not a saferecl results.json (schema {json.dumps(got)}, "
                         f"expected {RESULTS_SCHEMA})")
    if not isinstance(doc.get("tests"), list):
        raise Unreadable(f"{file}: has no \"tests\" list")
    return Side(str(path), doc)


def only_implementation(side: Side, name: str, renamed: str | None = None) -> Side:
    """The side with only implementation `name`'s results, called `renamed` if given: for
    comparing one implementation's verdicts with another's, test by test, e.g. the reference's
    against the same code's through the std adapter (`compare OLD NEW --as reference=std`,
    OLD and NEW possibly one run of both)."""
    renamed = renamed or name
    doc = copy.deepcopy(side.doc)
    prefix = name + "/"
    tests = [t for t in doc["tests"] if isinstance(t, dict) and t.get("implementation") == name]
    for t in tests:
        t["implementation"] = renamed
        if str(t.get("name", "")).startswith(prefix):
            t["name"] = renamed + "/" + t["name"][len(prefix):]
    doc["tests"] = tests
    for row in doc.get("requirements") or []:
        cells = row.get("implementations") or {}
        row["implementations"] = {renamed: cells[name]} if name in cells else {}
    doc["implementations"] = [dict(i, name=renamed) for i in doc.get("implementations") or []
                              if isinstance(i, dict) and i.get("name") == name]
    label = side.label + (f" ({name} as {renamed})" if renamed != name else f" ({name})")
    return Side(label, doc)


def read_sides(old: Path, new: Path, pair: str | None = None) -> tuple[Side, Side]:
    """Both sides; with `pair` "A=B" only implementation A of OLD, as B, and B of NEW.
    Raises Unreadable for a side, ValueError for a malformed pair."""
    names = pair.split("=", 1) if pair else []
    if pair and (len(names) != 2 or not all(names)):
        raise ValueError(f"--as takes A=B (two implementation names), got {pair!r}")
    old_side, new_side = read_side(old), read_side(new)
    if names:
        old_side, new_side = only_implementation(old_side, names[0], names[1]), only_implementation(new_side, names[1])
    return old_side, new_side


def test_key(t: dict) -> tuple[str, str]:
    return (str(t.get("implementation", "")), str(t.get("name", "")))


def test_kind(old: str, new: str) -> str:
    if not old:
        return "added"
    if not new:
        return "removed"
    if protocol.is_failing(new) and not protocol.is_failing(old):
        return "regression"
    if protocol.is_failing(old) and new == protocol.VERDICT_PASS:
        return "progression"
    return "changed"


def paragraph_of(t: dict) -> str:
    stable, para = t.get("stable_name") or "", t.get("paragraph") or ""
    return stable + (f"/{para}" if para else "")


def compare(old: Side, new: Side) -> Comparison:
    old_tests = {test_key(t): t for t in old.doc["tests"] if isinstance(t, dict)}
    new_tests = {test_key(t): t for t in new.doc["tests"] if isinstance(t, dict)}
    changes, unchanged = [], 0
    for key in sorted(old_tests.keys() | new_tests.keys()):
        o, n = old_tests.get(key), new_tests.get(key)
        ov, nv = (o or {}).get("verdict", ""), (n or {}).get("verdict", "")
        if ov == nv:
            unchanged += 1
            continue
        described = n or o
        changes.append(TestChange(
            kind=test_kind(ov, nv), implementation=key[0], name=key[1], old=ov, new=nv,
            paragraph=paragraph_of(described), rows=list(described.get("requirements") or []),
            tier=described.get("tier") or "", headline=(n or {}).get("headline") or ""))

    def cells(side: Side) -> dict[tuple[str, str], tuple[str, str]]:
        out = {}
        for row in side.doc.get("requirements") or []:
            for impl, cell in (row.get("implementations") or {}).items():
                out[(impl, row.get("id", ""))] = (cell.get("status", ""), row.get("ref", ""))
        return out

    old_cells, new_cells = cells(old), cells(new)
    rows = []
    for key in sorted(old_cells.keys() & new_cells.keys()):
        (os_, ref), (ns, _) = old_cells[key], new_cells[key]
        if os_ == ns or "unavailable" in (os_, ns):
            continue  # an unavailable side says nothing about the row
        rise = ROW_RANK.get(ns, 0) - ROW_RANK.get(os_, 0)
        kind = "regression" if rise > 0 else "progression" if rise < 0 else "changed"
        rows.append(RowChange(kind, key[0], key[1], ref, os_, ns))

    def impls(side: Side) -> dict[str, dict]:
        return {i.get("name", ""): i for i in side.doc.get("implementations") or [] if isinstance(i, dict)}

    def conforming(impl: dict | None) -> bool | None:
        """None when the run did not have it or it was unavailable: no verdict to compare."""
        if not impl or not impl.get("available", True):
            return None
        return bool(impl.get("conforming"))

    old_impls, new_impls = impls(old), impls(new)
    impl_changes = []
    for name in list(dict.fromkeys([*old_impls, *new_impls])):
        o, n = old_impls.get(name), new_impls.get(name)
        impl_changes.append(ImplementationChange(name, conforming(o), conforming(n),
                                                 (o or {}).get("counts") or {}, (n or {}).get("counts") or {}))

    differences = [(k, old.run.get(k), new.run.get(k)) for k in RUN_KEYS
                   if old.run.get(k) != new.run.get(k)]
    return Comparison(old, new, changes, rows, impl_changes, differences, unchanged)


def headline(c: Comparison) -> str:
    if c.regressions:
        return f"{c.regressions} regression(s), {c.progressions} progression(s)"
    return f"no regression; {c.progressions} progression(s)"


def markdown(c: Comparison) -> str:
    def code(text: str) -> str:
        return "`" + text.replace("`", "'").replace("\n", " ").replace("|", "\\|") + "`"

    md = f"# saferecl compare: {headline(c)}\n\nold: {code(c.old.label)}  \nnew: {code(c.new.label)}\n"
    if c.run_differences:
        md += "\nThe runs differ in: " + "; ".join(
            f"{k} {md_escape(json.dumps(o))} → {md_escape(json.dumps(n))}" for k, o, n in c.run_differences) + "\n"
    md += "\n| implementation | conforming (old → new) | " + " | ".join(protocol.VERDICTS) + " |\n"
    md += "|---|---|" + "---|" * len(protocol.VERDICTS) + "\n"
    word = {True: "yes", False: "**no**", None: "—"}
    for i in c.implementations:
        counts = []
        for v in protocol.VERDICTS:
            o, n = i.old_counts.get(v, 0), i.new_counts.get(v, 0)
            counts.append(str(n) if o == n else f"{o} → **{n}**")
        md += (f"| {md_escape(i.name)} | {word[i.old_conforming]} → {word[i.new_conforming]} | "
               + " | ".join(counts) + " |\n")

    def section(title: str, changes: list[TestChange]) -> str:
        if not changes:
            return ""
        out = f"\n## {title} ({len(changes)})\n\n| implementation | test | paragraph · rows | old → new |\n|---|---|---|---|\n"
        for ch in changes[:MAX_ITEMS]:
            where = md_escape(ch.paragraph) + ((" · " + " ".join(ch.rows)) if ch.rows else "")
            line = code(ch.name) + (f"<br>{code(ch.headline[:200])}" if ch.headline and ch.kind == "regression" else "")
            out += f"| {md_escape(ch.implementation)} | {line} | {where} | {ch.old or '—'} → **{ch.new or '—'}** |\n"
        if len(changes) > MAX_ITEMS:
            out += f"\n... and {len(changes) - MAX_ITEMS} more in the HTML page.\n"
        return out

    md += section("Regressions", c.of("regression"))
    md += section("Progressions", c.of("progression"))
    md += section("Other verdict changes", c.of("changed"))
    if c.rows:
        md += f"\n## Requirement rows that changed ({len(c.rows)})\n\n| implementation | row | old → new | |\n|---|---|---|---|\n"
        for r in c.rows[:MAX_ITEMS]:
            md += f"| {md_escape(r.implementation)} | **{r.row}** {md_escape(r.ref)} | {r.old} → **{r.new}** | {r.kind} |\n"
    added, removed = c.of("added"), c.of("removed")
    if added or removed:
        md += (f"\n{len(added)} test(s) only in the new run ({sum(1 for a in added if protocol.is_failing(a.new))} "
               f"failing), {len(removed)} only in the old one.\n")
        md += section("Failing tests only in the new run", [a for a in added if protocol.is_failing(a.new)])
    md += f"\n{c.unchanged} test(s) kept their verdict.\n"
    return md


def html(c: Comparison) -> str:
    from reports.page import environment  # Jinja2, only when a page is written
    return environment().get_template("compare.html.j2").render(c=c, headline=headline(c))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m reports.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the earlier run: a report directory or its results.json")
    parser.add_argument("new", type=Path, help="the later run")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="also write the Markdown here")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the HTML page here")
    parser.add_argument("--as", dest="pair", metavar="A=B",
                        help="only implementation A of OLD against implementation B of NEW")
    args = parser.parse_args(argv)
    try:
        c = compare(*read_sides(args.old, args.new, args.pair))
    except ValueError as e:
        parser.error(str(e))
    except Unreadable as e:
        print(f"compare: {e}", file=sys.stderr)
        return EXIT_UNREADABLE
    text = markdown(c)
    sys.stdout.write(text)
    if args.markdown:
        write_atomically(args.markdown, text)
    if args.html:
        write_atomically(args.html, html(c))
    return c.exit_status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
