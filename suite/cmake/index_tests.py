#!/usr/bin/env python3
"""The test index: what every test of the battery is, written once per build tree.

This script is the only code in saferecl that reads the suite's sources for what they
declare: the `// REQUIRES:`, `// TEST:`, `// TIER:` and `// FIRST-INCLUDE:` directives and the doctest
`TEST_CASE("...")` names with their `doctest::test_suite("<tier>.<kind>")`. CMake runs it at
configure time (SafereclBattery.cmake) with the sources it globbed and the capabilities of
each available implementation; it writes, into <build>/saferecl/:

  index.json     schema saferecl-index/1: one entry per (implementation, test), with its
                 CTest name, stable name, paragraph, rows, tier, kind, group, source, line,
                 capabilities, executable and status (built, compile-test, not-applicable,
                 not-built). The driver, the reports and the mutant sweep read it.
  battery.cmake  what CMake builds from it: the sources of each <impl>.<group> executable and
                 the compile-fail tests, as calls of SafereclBattery.cmake's functions, and
                 the sources kept out of the precompiled header (FIRST-INCLUDE).
  cases/<exe>.txt  the doctest cases each executable must list; discover_tests.cmake checks
                 the executable's own listing against it at CTest time and fails loudly when
                 they differ (a TEST_CASE this parser missed, or a stale build).

and, into --pruned-dir, a copy of each source some of whose cases do not compile against an
implementation (the driver found them: `--excluded` "<impl>|<source>@<line>" entries), with
those cases blanked out, so that one test that does not compile costs only itself.
`isolated_case()` gives the driver the copy with one case alone, to find them.

The conventions themselves are described in suite/README.md and SafereclBattery.cmake. A
source that breaks them (an unknown capability or tier, a compile-fail file without its
TEST line) stops the configuration with a message naming the file.

The driver imports this file for `scan_source` (the mutant sweep picks the sources that
define its killers before any build tree exists), so it keeps to the standard library.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = "saferecl-index/1"
TIERS = ("core", "strict", "qoi", "cxx29")
KINDS = ("api", "semantic", "concurrency", "stress", "fault", "lifetime")
DEFAULT_COMPILE_FAIL_TIER = "core"
# The group of a compile-fail test, as its CTest label says: it belongs to no executable.
COMPILE_FAIL_GROUP = "api"
# CTest TIMEOUT of a compile-fail test (two compilations), in seconds. A doctest case gets
# SAFERECL_TEST_TIMEOUT, stress cases three times that (discover_tests.cmake sets them; the
# index repeats the rule for the reports, which tell a CTest kill by the clock).
COMPILE_FAIL_TIMEOUT = 120
STRESS_TIMEOUT_FACTOR = 3

_DIRECTIVE = re.compile(r"^// (REQUIRES|TEST|TIER|FIRST-INCLUDE):[ \t]*(.*?)\s*$", re.M)
_TEST_CASE = re.compile(r"(?<![A-Za-z0-9_])TEST_CASE\s*\(\s*")
_STRING_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"\s*')
_TEST_SUITE = re.compile(r'test_suite\s*\(\s*"([^"]*)"')
_ESCAPES = {"n": "\n", "t": "\t"}
_STABLE_NAME = re.compile(r"^\s*([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+)(?:/([0-9]+))?")
_ROW_ID = re.compile(r"(?:^|(?<=[^A-Za-z0-9_.]))([GRHB][0-9]{1,2})(?![0-9])")


class SuiteError(Exception):
    """A source that breaks the suite's conventions: the message names it."""


@dataclass
class Case:
    """One test a source defines: a doctest TEST_CASE, or the TEST of a compile-fail file."""
    name: str
    line: int
    suite: str  # the doctest test_suite, "<tier>.<kind>"; "" for compile-fail tests
    tier: str
    kind: str
    last_line: int = 0  # the line of the TEST_CASE body's closing brace (0: compile-fail)


@dataclass
class Source:
    rel: str  # relative to suite/
    requires: list[str] = field(default_factory=list)  # the REQUIRES directive only
    cases: list[Case] = field(default_factory=list)
    # FIRST-INCLUDE: the header the source checks on its own, before anything else is
    # included; the battery's precompiled header (which comes first) is kept out of it.
    first_include: str = ""

    @property
    def compile_fail(self) -> bool:
        return self.rel.endswith(".compile.fail.cpp")

    @property
    def doctest(self) -> bool:
        return self.rel.endswith(".pass.cpp")

    def group(self) -> str:
        """hp, rcu or stress from the area folder; -fault for the fault executables."""
        area = self.rel.split("/", 1)[0].removeprefix("saferecl.")
        return area + "-fault" if self.rel.endswith(".fault.pass.cpp") else area

    def capabilities(self) -> list[str]:
        """What an implementation needs for this source: implied by its area and suffix,
        plus its REQUIRES directive."""
        needed = []
        if self.rel.startswith("saferecl.hp/"):
            needed.append("hazard-pointer")
        elif self.rel.startswith("saferecl.rcu/"):
            needed.append("rcu")
        if self.rel.endswith((".compile.fail.cpp", ".compile.pass.cpp")):
            needed.append("native-api")  # API shape is the implementation's own only when native
        return list(dict.fromkeys(needed + self.requires))


def _decode(literal: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], m[1]), literal)


def _split_suite(suite: str) -> tuple[str, str]:
    tier, _, kind = suite.partition(".")
    if tier in TIERS and kind in KINDS:
        return tier, kind
    return "unlabelled", "unlabelled"  # stands out in the reports, as in the CTest labels


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _closing_brace(text: str, opening: int) -> int:
    """The offset of the brace that closes the one at `opening`, skipping comments and
    string and character literals (a ' after a digit is a digit separator); -1 if none."""
    depth, i, n = 0, opening, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return -1
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            if i < 0:
                return -1
            i += 1
        elif c == 'R' and text.startswith('R"', i) and not (text[i - 1].isalnum() or text[i - 1] == "_"):
            delimiter = text[i + 2:text.find("(", i)]
            i = text.find(")" + delimiter + '"', i)
            if i < 0:
                return -1
            i += len(delimiter) + 1
        elif c == '"' or (c == "'" and not text[i - 1].isdigit()):
            i += 1
            while i < n and text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def scan_source(rel: str, text: str, known_capabilities: list[str] | None = None) -> Source:
    """Reads one suite source's directives and tests. `known_capabilities`, when given,
    validates REQUIRES."""
    source = Source(rel)
    directives: dict[str, tuple[str, int]] = {}
    for m in _DIRECTIVE.finditer(text):
        directives.setdefault(m[1], (m[2], _line_of(text, m.start())))  # the first one counts
    if "REQUIRES" in directives:
        source.requires = [c for c in re.split(r"[ ,]+", directives["REQUIRES"][0]) if c]
        unknown = [c for c in source.requires
                   if known_capabilities is not None and c not in known_capabilities]
        if unknown:
            raise SuiteError(f"suite/{rel}: unknown capability '{unknown[0]}' in REQUIRES "
                             f"(known: {' '.join(known_capabilities or [])})")
    source.first_include = directives.get("FIRST-INCLUDE", ("", 0))[0]
    if source.compile_fail:
        name, line = directives.get("TEST", ("", 0))
        if not name:
            raise SuiteError(f"suite/{rel}: a compile-fail source needs a '// TEST: <name>' line")
        tier = directives.get("TIER", (DEFAULT_COMPILE_FAIL_TIER, 0))[0] or DEFAULT_COMPILE_FAIL_TIER
        if tier not in TIERS:
            raise SuiteError(f"suite/{rel}: unknown TIER '{tier}' (known: {' '.join(TIERS)})")
        source.cases.append(Case(name, line, "", tier, "compile-fail"))
        return source
    for m in _TEST_CASE.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if "//" in text[line_start:m.start()]:
            continue  # a mention in a comment
        pos, parts = m.end(), []
        while (literal := _STRING_LITERAL.match(text, pos)):
            parts.append(_decode(literal[1]))
            pos = literal.end()
        if not parts:
            continue
        body = text.find("{", pos)
        suite = _TEST_SUITE.search(text, pos, body if body >= 0 else len(text))
        suite_name = suite[1] if suite else ""
        end = _closing_brace(text, body) if body >= 0 else -1
        if end < 0:
            raise SuiteError(f"suite/{rel}:{_line_of(text, m.start())}: the body of this TEST_CASE "
                             "has no closing brace")
        source.cases.append(Case("".join(parts), _line_of(text, m.start()), suite_name,
                                 *_split_suite(suite_name), last_line=_line_of(text, end)))
    return source


def without_cases(text: str, source: Source, dropped: set[int], origin: Path) -> str:
    """`text` of `source` with the cases that start on the `dropped` lines blanked out, line
    for line, behind a #line directive naming `origin`: the compiler's messages and doctest's
    file and line names stay the original source's."""
    lines = text.split("\n")
    for case in source.cases:
        if case.line in dropped:
            for number in range(case.line, case.last_line + 1):
                lines[number - 1] = ""
    return f'#line 1 "{origin}"\n' + "\n".join(lines)


def isolated_case(text: str, source: Source, line: int, origin: Path) -> str:
    """`text` with only the case starting on `line` left (see without_cases)."""
    return without_cases(text, source, {c.line for c in source.cases if c.line != line}, origin)


def name_parts(name: str) -> tuple[str, str, list[str]]:
    """"saferecl.hp.holder.mem/5 H30: ..." -> ("saferecl.hp.holder.mem", "5", ["H30"]): the
    stable name, the paragraph and the requirement rows cited before the first ':'."""
    head = name.split(":", 1)[0]
    m = _STABLE_NAME.match(head)
    stable, paragraph = (m[1], m[2] or "") if m else ("", "")
    rows = _ROW_ID.findall(head[m.end() if m else 0:])
    return stable, paragraph, list(dict.fromkeys(rows))


@dataclass
class Implementation:
    name: str
    capabilities: list[str]


def timeout_of(case: Case, test_timeout: int) -> int:
    if case.kind == "compile-fail":
        return COMPILE_FAIL_TIMEOUT
    return test_timeout * STRESS_TIMEOUT_FACTOR if case.kind == "stress" else test_timeout


def index_entries(sources: list[Source], impls: list[Implementation], excluded: set[str],
                  test_timeout: int) -> list[dict]:
    """The index: every test of every source, for every implementation. `excluded` holds
    "<impl>|<rel>" for the sources the driver found not to compile against <impl>, and
    "<impl>|<rel>@<line>" for the cases (by their TEST_CASE line) that do not compile on their
    own; `test_timeout` is SAFERECL_TEST_TIMEOUT."""
    entries = []
    for impl in impls:
        for source in sources:
            needed = source.capabilities()
            missing = [c for c in needed if c not in impl.capabilities]
            executable = "" if source.compile_fail else f"{impl.name}.{source.group()}"
            if missing:
                status, reason = "not-applicable", f"the {impl.name} adapter lacks: {', '.join(missing)}"
            elif f"{impl.name}|{source.rel}" in excluded:
                status, reason = "not-built", f"does not compile against {impl.name}"
            elif source.compile_fail:
                status, reason = "compile-test", ""
            elif source.doctest:
                status, reason = "built", ""
            else:
                continue  # neither a test nor a compile-fail file: nothing to run
            for case in source.cases:
                if status == "built" and f"{impl.name}|{source.rel}@{case.line}" in excluded:
                    case_status = "not-built"
                    case_reason = (f"does not compile against {impl.name} (this test alone; "
                                   "the other tests of its source were built)")
                else:
                    case_status, case_reason = status, reason
                stable, paragraph, rows = name_parts(case.name)
                entries.append({
                    "id": f"{impl.name}/{case.name}",
                    "implementation": impl.name,
                    "name": case.name,
                    "requirement": f"{stable}/{paragraph}" if paragraph else stable,
                    "stable_name": stable,
                    "paragraph": paragraph,
                    "rows": rows,
                    "tier": case.tier,
                    "kind": case.kind,
                    "suite": case.suite,
                    "group": COMPILE_FAIL_GROUP if source.compile_fail else source.group(),
                    "source": f"suite/{source.rel}",
                    "line": case.line,
                    "capabilities": needed,
                    "executable": executable,
                    "status": case_status,
                    "reason": case_reason,
                    "timeout": timeout_of(case, test_timeout),
                })
    return entries


# ----------------------------------------------------------------------------- for CMake

def _cmake_quote(text: str) -> str:
    return f"[==[{text}]==]"


def _case_key(suite: str, name: str) -> str:
    """One expected doctest case as discover_tests.cmake spells it: CMake list separators
    and brackets carried as character references, so a name stays one list element."""
    return (f"{suite} {name}").replace(";", "&#59").replace("[", "&#91").replace("]", "&#93")


def battery_fragment(entries: list[dict], suite_dir: Path, read: list[Path],
                     alone: list[str], pruned: dict[tuple[str, str], Path] | None = None) -> str:
    """battery.cmake: the executables with their sources, and the compile-fail tests.
    `alone` are the sources (relative to suite/) that see their FIRST-INCLUDE before
    anything else, so without the precompiled header. `pruned` maps (implementation, source
    relative to suite/) to the copy built instead, without the cases that do not compile."""
    pruned = pruned or {}
    lines = ["# Generated by suite/cmake/index_tests.py from the suite's sources (do not edit).",
             "set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS"]
    lines += [f"  {_cmake_quote(str(p))}" for p in read]
    lines.append(")")
    executables: dict[tuple[str, str], list[str]] = {}
    for e in entries:
        if e["status"] == "built":
            sources = executables.setdefault((e["implementation"], e["group"]), [])
            if e["source"] not in sources:
                sources.append(e["source"])
        elif e["status"] == "compile-test":
            rel = e["source"].removeprefix("suite/")
            lines.append(f"saferecl_add_compile_fail_test({e['implementation']} {_cmake_quote(rel)} "
                         f"{_cmake_quote(e['name'])} {e['tier']} {e['timeout']})")
    def path(impl: str, rel: str) -> Path:
        return pruned.get((impl, rel), suite_dir / rel)

    for (impl, group), sources in executables.items():
        lines.append(f"saferecl_add_battery_executable({impl} {group}")
        lines += [f"  {_cmake_quote(str(path(impl, s.removeprefix('suite/'))))}" for s in sources]
        lines.append(")")
    alone_paths = [suite_dir / rel for rel in alone]
    alone_paths += [copy for (_, rel), copy in pruned.items() if rel in alone]
    if alone_paths:
        lines.append("set_source_files_properties(")
        lines += [f"  {_cmake_quote(str(p))}" for p in alone_paths]
        lines.append("  PROPERTIES SKIP_PRECOMPILE_HEADERS ON)")
    return "\n".join(lines) + "\n"


def write_pruned_copies(sources: list[Source], entries: list[dict], excluded: set[str],
                        suite_dir: Path, pruned_dir: Path) -> dict[tuple[str, str], Path]:
    """Writes <pruned_dir>/<impl>/<source> for each built source with excluded cases (see
    without_cases); returns where each went. A copy is rewritten only when it changes, so
    that a reconfiguration does not rebuild it."""
    built = {(e["implementation"], e["source"].removeprefix("suite/")) for e in entries
             if e["status"] == "built"}
    by_rel = {s.rel: s for s in sources}
    pruned: dict[tuple[str, str], Path] = {}
    for key in sorted(excluded):
        impl, _, rest = key.partition("|")
        rel, at, line = rest.rpartition("@")
        if not at or (impl, rel) not in built or rel not in by_rel:
            continue
        pruned.setdefault((impl, rel), pruned_dir / impl / rel)
    for (impl, rel), copy in pruned.items():
        dropped = {int(e.rpartition("@")[2]) for e in excluded
                   if e.startswith(f"{impl}|{rel}@")}
        origin = suite_dir / rel
        text = without_cases(origin.read_text(errors="replace"), by_rel[rel], dropped, origin)
        copy.parent.mkdir(parents=True, exist_ok=True)
        if not copy.exists() or copy.read_text(errors="replace") != text:
            copy.write_text(text)
    return pruned


def expected_cases(entries: list[dict]) -> dict[str, str]:
    """<executable> -> the sorted case keys discover_tests.cmake compares its listing with."""
    by_exe: dict[str, list[str]] = {}
    for e in entries:
        if e["status"] == "built":
            by_exe.setdefault(e["executable"], []).append(_case_key(e["suite"], e["name"]))
    return {exe: "\n".join(sorted(keys)) for exe, keys in by_exe.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite-dir", type=Path, required=True)
    parser.add_argument("--sources", type=Path, required=True,
                        help="file: the suite-relative sources to index, one per line")
    parser.add_argument("--out-dir", type=Path, required=True, help="<build>/saferecl")
    parser.add_argument("--implementation", action="append", default=[], metavar="NAME=CAP,CAP",
                        help="an available implementation and its capabilities (repeatable)")
    parser.add_argument("--known-capabilities", required=True, help="comma-separated")
    parser.add_argument("--test-timeout", type=int, required=True, help="SAFERECL_TEST_TIMEOUT")
    parser.add_argument("--excluded", default="",
                        help="comma-separated <impl>|<source> and <impl>|<source>@<line> entries")
    parser.add_argument("--pruned-dir", type=Path,
                        help="where the copies of sources without their excluded cases go")
    args = parser.parse_args(argv)

    known = [c for c in args.known_capabilities.split(",") if c]
    impls = []
    for spec in args.implementation:
        name, _, caps = spec.partition("=")
        impls.append(Implementation(name, [c for c in caps.split(",") if c]))
    rels = [line.strip() for line in args.sources.read_text().splitlines() if line.strip()]
    try:
        sources = [scan_source(rel, (args.suite_dir / rel).read_text(errors="replace"), known)
                   for rel in rels]
    except SuiteError as e:
        print(f"index_tests.py: {e}", file=sys.stderr)
        return 1
    excluded = {e for e in args.excluded.split(",") if e}
    entries = index_entries(sources, impls, excluded, args.test_timeout)
    pruned = write_pruned_copies(sources, entries, excluded, args.suite_dir,
                                 args.pruned_dir or args.out_dir / "pruned")

    out = args.out_dir
    (out / "cases").mkdir(parents=True, exist_ok=True)
    for stale in (out / "cases").glob("*.txt"):
        stale.unlink()
    for exe, text in expected_cases(entries).items():
        (out / "cases" / f"{exe}.txt").write_text(text + "\n")
    read = [args.suite_dir / rel for rel in rels] + [Path(__file__).resolve()]
    alone = [s.rel for s in sources if s.first_include and s.doctest]
    (out / "battery.cmake").write_text(battery_fragment(entries, args.suite_dir, read, alone, pruned))
    (out / "index.json").write_text(json.dumps({"schema": SCHEMA, "tests": entries}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
