"""The dependency rules of the design (../shared/ARCHITECTURE.md, "Dependency rules"),
checked by reading #include lines and, for the reports, their code's text.

- suite/ sees an implementation only through <sut.hpp>: it includes no header of the
  reference (saferecl/...), of an adapter (other than sut.hpp) or of a library that an
  adapter wraps (the folders the wrapper adapters include from: cds/, urcu/, xenium/, ...),
  and not <hazard_pointer> or <rcu> -- except the std header-existence tests in the *.syn
  folders, which exist to include exactly those.
- reference-impl/ includes nothing outside itself: every include that names a file of this
  repository names one under reference-impl/, and none names a test framework or another
  implementation.
- An adapter includes nothing from another adapter (the kit, adapters/kit/, is shared and
  is no adapter), and its adapter.cmake names no other adapter's folder (the documented
  exception: mutants reuses reference/include, so a mutant has exactly the reference's
  interface). The reference's headers are included only by the reference and mutants
  adapters and by the std adapter's self-test tree (adapters/std/selftest/, the reference
  dressed as a vendor's standard library).
- reports/ reads run outputs and the test index only. This is a text scan of the reports'
  code (not of reports/tests/, its tests and fixtures): it finds no parser of the suite's directives or
  TEST_CASEs and no path into suite/, reference-impl/ or adapters/ sources. It cannot prove
  that a path built at run time from other inputs never reaches a source file.

What it cannot see: includes produced by macros, and include paths given on a compiler
command line without an #include naming the file. Standalone: standard library and pytest.
Run: /usr/bin/python3 -m pytest driver/tests/test_dependency_rules.py
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".cc", ".hh", ".ipp"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)
STD_IMPLEMENTATION_HEADERS = {"hazard_pointer", "rcu"}
STD_HEADER_TEST_FOLDERS = {"hazard.pointer.syn", "rcu.syn"}
TEST_FRAMEWORKS = ("doctest/", "benchmark/", "gtest/", "catch2/")


def sources(folder: Path):
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and (p.suffix in SOURCE_SUFFIXES or p.parent.name == "include"))


def includes(path: Path):
    """(line number, delimiter, header name) of every #include in the file."""
    text = path.read_text(errors="replace")
    for m in INCLUDE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m[1], m[2]


def adapter_names():
    return sorted(p.parent.name for p in (ROOT / "adapters").glob("*/adapter.cmake"))


def wrapped_library_prefixes():
    """The first folder of every library header an adapter includes (cds/, urcu/, ...):
    a header with a folder that is neither this repository's nor the system's, nor a test
    framework's (an adapter's native.bench.cpp is a Google Benchmark program)."""
    own = {"saferecl", "support", "sys", "linux", "asm", "bits", "sanitizer"}  # ours, the OS's
    prefixes = set()
    for name in adapter_names():
        for path in sources(ROOT / "adapters" / name):
            for _, _, header in includes(path):
                if "/" in header and header.split("/")[0] not in own and not header.startswith(TEST_FRAMEWORKS):
                    prefixes.add(header.split("/")[0] + "/")
    return prefixes


def reference_headers():
    base = ROOT / "reference-impl" / "include"
    return {p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file()}


def adapter_headers():
    """Header name -> adapters that provide it (their include/ folders)."""
    provided = {}
    for name in adapter_names():
        base = ROOT / "adapters" / name / "include"
        for p in base.rglob("*") if base.is_dir() else []:
            if p.is_file():
                provided.setdefault(p.relative_to(base).as_posix(), set()).add(name)
    return provided


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


def test_suite_sees_implementations_only_through_sut_hpp():
    forbidden_prefixes = tuple(sorted(wrapped_library_prefixes())) + ("saferecl/",)
    reference = reference_headers()
    adapter_only = {h for h in adapter_headers() if h != "sut.hpp"} | {"adapter_kit.hpp"}
    assert forbidden_prefixes != ("saferecl/",), "found no wrapped library: the scan is broken"
    violations = []
    for path in sources(ROOT / "suite"):
        std_header_test = bool(STD_HEADER_TEST_FOLDERS & set(path.parts))
        for line, _, header in includes(path):
            if header in STD_IMPLEMENTATION_HEADERS and not std_header_test:
                violations.append(f"{where(path, line)}: <{header}> (only the *.syn header tests)")
            elif header in reference or header.startswith(forbidden_prefixes):
                violations.append(f"{where(path, line)}: {header} is an implementation's header")
            elif header in adapter_only:
                violations.append(f"{where(path, line)}: {header} belongs to an adapter")
    assert not violations, "the suite reaches past <sut.hpp>:\n" + "\n".join(violations)


def repository_files_named(header: str):
    """Files of this repository (build trees and reports/out excluded) whose path ends with
    the include name."""
    skip = {"build", "out", ".git"}
    return [p for p in ROOT.rglob(Path(header).name)
            if p.is_file() and not skip & set(p.relative_to(ROOT).parts)
            and p.as_posix().endswith("/" + header)]


def test_reference_includes_nothing_outside_itself():
    reference_root = ROOT / "reference-impl"
    other_implementations = tuple(sorted(wrapped_library_prefixes())) + TEST_FRAMEWORKS
    violations = []
    for path in sources(reference_root):
        for line, delimiter, header in includes(path):
            if header in STD_IMPLEMENTATION_HEADERS or header.startswith(other_implementations):
                violations.append(f"{where(path, line)}: {header}")
                continue
            if delimiter == '"' and (path.parent / header).is_file():
                continue  # next to the including file
            if (reference_root / "include" / header).is_file():
                continue
            outside = [p for p in repository_files_named(header)
                       if reference_root not in p.parents]
            if outside:
                violations.append(f"{where(path, line)}: {header} is "
                                  f"{outside[0].relative_to(ROOT)}")
    assert not violations, "reference-impl/ includes from outside:\n" + "\n".join(violations)


def test_adapters_include_no_other_adapter():
    provided = adapter_headers()
    reference = reference_headers()
    may_use_reference = {"reference", "mutants"}
    violations = []
    for name in adapter_names():
        folder = ROOT / "adapters" / name
        for path in sources(folder):
            for line, delimiter, header in includes(path):
                owners = provided.get(header, set())
                beside = (path.parent / header).resolve()
                if delimiter == '"' and beside.is_file():
                    adapters_dir = (ROOT / "adapters").resolve()
                    if adapters_dir in beside.parents:
                        owner = beside.relative_to(adapters_dir).parts[0]
                        owners = set() if owner in (name, "kit") else {owner}
                if owners and name not in owners:
                    violations.append(f"{where(path, line)}: {header} of adapters/"
                                      f"{'/'.join(sorted(owners))}")
                self_test = (folder / "selftest") in path.parents and name == "std"
                if header in reference and name not in may_use_reference and not self_test:
                    violations.append(f"{where(path, line)}: {header} is the reference's")
        cmake = (folder / "adapter.cmake").read_text()
        for other in adapter_names():
            if other == name or (name, other) == ("mutants", "reference"):
                continue
            if re.search(rf"adapters/{re.escape(other)}\b", cmake):
                violations.append(f"adapters/{name}/adapter.cmake names adapters/{other}")
    assert not violations, "an adapter uses another adapter:\n" + "\n".join(violations)


# What reading the suite's sources looks like in the reports' code: a parser of the test
# directives or of TEST_CASE, or a path into the source folders.
SOURCE_READING = [
    (re.compile(r"//\s*(TEST|TIER|REQUIRES):"), "parses a suite directive"),
    (re.compile(r"\bTEST_CASE\b|\btest_suite\s*\\?\("), "parses doctest declarations"),
    (re.compile(r"""["'](suite|reference-impl|adapters)/[^"']*\.(cpp|hpp)["']"""),
     "names a source file"),
    (re.compile(r"""(/|join\(|Path\()\s*[^)\n]*["'](suite|reference-impl)["']"""),
     "builds a path into the sources"),
    (re.compile(r"""^\s*#\s*include\s*[<"](sut\.hpp|saferecl/|support/)""", re.MULTILINE),
     "includes a suite or implementation header"),
    (re.compile(r"^\s*(from|import)\s+(suite|adapters)\b", re.MULTILINE), "imports the suite"),
    (re.compile(r"\bsource_dir\b|--source-dir|--src-dir"), "takes the source tree as input"),
]
REPORT_CODE_SUFFIXES = {".py", ".cpp", ".hpp", ".h", ".j2", ".jinja", ".html", ".cmake"}


def report_code_files():
    reports = ROOT / "reports"
    for path in sorted(reports.rglob("*")):
        rel = path.relative_to(reports).parts
        if not path.is_file() or rel[0] in ("tests", "out"):
            continue
        if path.suffix in REPORT_CODE_SUFFIXES or path.name == "CMakeLists.txt":
            yield path


def test_reports_read_only_run_outputs():
    files = list(report_code_files())
    assert files, "no report code found under reports/"
    violations = []
    for path in files:
        if path.resolve() == Path(__file__).resolve():
            continue
        text = path.read_text(errors="replace")
        for pattern, what in SOURCE_READING:
            for m in pattern.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                violations.append(f"{where(path, line)}: {what}: {m[0].strip()}")
    assert not violations, ("the reports read sources instead of run outputs:\n"
                            + "\n".join(violations))
