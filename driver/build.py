"""One CMake build tree of the battery, and what its compiler said.

A tree is per sanitizer tier (the CMake preset) and set of implementations. `build()` builds
everything it can: when a source fails to compile against an implementation, each of its
TEST_CASEs is compiled on its own (`failing_cases`); the cases that fail alone are left out
(SAFERECL_EXCLUDED_SOURCES "<impl>|<source>@<line>": the index marks them NOT BUILT and the
executable gets a copy of the source without them), or the whole source when no case fails
alone or every case does, and the rest is rebuilt. So one test that does not compile, or a
vendor header that rejects it, costs only that test. The compiler's words are kept for the
report (build-failures.json) and for the mutant sweep, which charges each failure to the
cases that failed alone, else to the TEST_CASE whose body holds each error (`charged_tests`).

A failure that is not the implementation's is never charged to it: a precompiled header
that a header changed under (a vendor tree replaced during the build) is deleted and the
tree built again.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

from driver import compilers, console, language, tree_lock
from driver.index import index_writer
from driver.console import elapsed, say
from driver.environment import ensure_packages
from driver.errors import EnvironmentProblem
from driver.options import SANITIZERS
from driver.paths import BUILD, ROOT

NINJA_PROGRESS = re.compile(r"\[(\d+)/(\d+)\]")
NINJA_FAILED = re.compile(r"FAILED: (\S+)")
NINJA_NEXT_RECORD = re.compile(r"\[\d+/\d+\]|FAILED: |ninja: ")
# The object file of a battery source: CMakeFiles/<impl>.<group>.dir/<suite-relative source>.o
BATTERY_OBJECT = re.compile(r"CMakeFiles/([^/]+)\.dir/(.+)\.o$")
COMPILER_ERROR_LINE = r":(\d+):\d+: error"
PROGRESS_EVERY_SECONDS = 5
# The precompiled support/test.hpp of an executable (SafereclBattery.cmake).
PRECOMPILED_HEADER = re.compile(r"/cmake_pch\.hxx\.pch$")
# A precompiled header older than a header it read (clang; g++ silently ignores such a PCH):
# the build's fault, not the implementation's.
STALE_PRECOMPILED_HEADER = re.compile(r"has been modified since the precompiled header")
STALE_REBUILDS = 2
# Where the copies of sources without their failing cases are built from (index_tests.py).
PRUNED_PREFIX = "pruned/"
# ccache serves a TU that uses a precompiled header only with these (its manual,
# "Precompiled headers"); a user's own CCACHE_SLOPPINESS wins.
CCACHE_SLOPPINESS = "pch_defines,time_macros,include_file_mtime,include_file_ctime"
# Nor is the build directory hashed (sources and include paths are absolute), so that trees of
# the same flags share what does not depend on the implementation (the harness's support
# sources, an unchanged library): a user's own CCACHE_NOHASHDIR wins.
CCACHE_NOHASHDIR = "true"


def ccache() -> str | None:
    """Debian's ccache, when installed: every tree compiles through it (README, "Builds")."""
    return shutil.which("ccache")


def tree_dir(sanitizer: str, root: Path | None = None) -> Path:
    return (root or BUILD) / SANITIZERS[sanitizer]


def parse_build_failures(lines: list[str], impls: list[str]) -> list[dict]:
    """The FAILED records of ninja's output. A battery source of one of `impls` (not the
    harness in support/) is `exclude`d from the next build, keyed "<impl>|<source>"; any
    other failed target (the library, the harness) is recorded but cannot be left out."""
    failures = []
    for i, line in enumerate(lines):
        failed = NINJA_FAILED.match(line)
        if not failed:
            continue
        text = []
        for follow in lines[i + 1:]:
            if NINJA_NEXT_RECORD.match(follow):
                break
            text.append(follow)
        log = "\n".join(text[1:])  # text[0] is the command line
        target = failed[1]
        obj = BATTERY_OBJECT.search(target)
        impl = obj[1].split(".")[0] if obj else None
        if obj and impl in impls and not obj[2].startswith("support/"):
            rel, pruned = obj[2], obj[2].startswith(f"{PRUNED_PREFIX}{impl}/")
            if pruned:  # the copy without its failing cases failed too: the whole source goes
                rel = rel.removeprefix(f"{PRUNED_PREFIX}{impl}/")
            failures.append({"implementation": impl, "source": "suite/" + rel,
                             "executable": obj[1], "exclude": True, "pruned": pruned,
                             "key": f"{impl}|{rel}", "log": log})
        else:
            failures.append({"implementation": None, "source": None, "executable": target,
                             "exclude": False, "key": target, "log": log})
    return failures


def syntax_only(args: list[str], source: str, probe: str) -> list[str]:
    """A compile command of `source` turned into a syntax check of `probe`: no object file,
    no dependency file."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif arg not in ("-c", "-MD", "-MMD"):
            out.append(probe if arg == source else arg)
    return out + ["-fsyntax-only"]


def charged_tests(source: str, log: str, cases: list[tuple[int, str]]) -> list[str]:
    """The tests a compiler failure of `source` (suite/... path) is charged to: each error
    the compiler reports in the source goes to the test case starting on the last line at or
    above it (`cases` are (line, name) of its tests); an error above the first case, or no
    error located in the source at all, goes to every test of the source."""
    rel = source.removeprefix("suite/")
    every = [name for _, name in cases]
    blamed: set[str] = set()
    for m in re.finditer(re.escape(rel) + COMPILER_ERROR_LINE, log):
        owners = [name for line, name in sorted(cases) if line <= int(m[1])]
        blamed |= {owners[-1]} if owners else set(every)
    return [name for name in every if name in blamed or not blamed]


class BuildTree:
    """A configured build tree. `definitions` are extra CMake cache entries (the std
    adapter's options, SAFERECL_API_MUTANT, SAFERECL_BENCHMARKS)."""

    def __init__(self, sanitizer: str, impls: list[str], definitions: dict[str, str],
                 directory: Path, timeout: int | None = None, sources: str = "",
                 compiler_command: str | None = None, mode: language.Request | None = None):
        self.sanitizer = sanitizer
        self.preset = SANITIZERS[sanitizer]
        self.impls = impls
        self.definitions = definitions
        # --cxx / CXX and --std / --stdlib (or the caller's own): a tree of its own per
        # compiler and mode (driver/compilers.py, driver/language.py), checked at configure.
        self.compiler_command = compiler_command or compilers.requested()
        self.mode = mode if mode is not None else language.requested()
        if self.compiler_command:
            directory = directory.with_name(f"{directory.name}-{compilers.tag_of(self.compiler_command)}")
        self.dir = directory.with_name(directory.name + language.tree_suffix(self.mode))
        self.timeout = timeout  # CTest TIMEOUT of one test case; None: the CMake default
        self.sources = sources  # regex of the suite sources to build (SAFERECL_SOURCES)
        self.excluded: list[str] = []  # "<impl>|<suite-relative source>"
        self.failures: list[dict] = []  # parse_build_failures() of every build
        self.precompiled_header = True  # off once the header itself failed to compile

    @property
    def index_path(self) -> Path:
        return self.dir / "saferecl" / "index.json"

    def configure(self) -> None:
        tree_lock.hold(self.dir)
        args = ["cmake", "--preset", self.preset, "-B", str(self.dir),
                "-DSAFERECL_IMPLEMENTATIONS=" + ";".join(self.impls),
                "-DSAFERECL_EXCLUDED_SOURCES=" + ";".join(self.excluded),
                "-DSAFERECL_SOURCES=" + self.sources]
        args += [f"-D{k}={v}" for k, v in self.definitions.items()]
        args.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={ccache() or ''}")
        args.append(f"-DSAFERECL_PRECOMPILED_HEADER={'ON' if self.precompiled_header else 'OFF'}")
        args += [f"-D{k}={v}" for k, v in self.language().cmake_definitions().items()]
        if self.compiler_command:
            args.append(f"-DCMAKE_CXX_COMPILER={self.compiler().path}")
        if self.timeout is not None:
            args.append(f"-DSAFERECL_TEST_TIMEOUT={self.timeout}")
        result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stdout + result.stderr)
            raise EnvironmentProblem(f"CMake configuration of {self.dir} failed (output above)")

    @cache
    def compiler(self) -> compilers.Compiler:
        """The --cxx / CXX compiler (else the presets'), found (or installed) and able to
        build this tier."""
        if not self.compiler_command:
            return compilers.resolve(compilers.PRESET_COMPILER)
        compiler = compilers.resolve(self.compiler_command)
        compilers.check_tier(compiler, self.sanitizer)
        return compiler

    @cache
    def language(self) -> language.Language:
        """The tree's standard and standard library, resolved for its compiler (with
        Debian's libc++ installed when a clang++-N is to use it)."""
        ensure_packages(language.debian_packages(self.mode, self.compiler().command))
        return language.resolve(self.mode, self.compiler().path)

    def implementations(self) -> list[dict]:
        """implementations.json of the tree: each adapter, available or why not."""
        return json.loads((self.dir / "saferecl" / "implementations.json").read_text())

    def index(self) -> list[dict]:
        """The tests of the tree (suite/cmake/index_tests.py wrote them at configure time)."""
        return json.loads(self.index_path.read_text())["tests"]

    def build(self, jobs: int, log_path: Path, target: str | None = None,
              quiet: bool = False) -> None:
        """Builds everything it can (see the module's comment); the log goes to log_path,
        and progress to the console unless `quiet` (builds running side by side).
        When the precompiled support/test.hpp does not compile (a vendor header, an API
        mutant), the tree is rebuilt without it, so each source fails on its own and gets
        its own compiler message."""
        report = (lambda _: None) if quiet else say
        builds = exclusions = stale_rebuilds = 0
        while True:
            builds += 1
            failed = self._build_once(jobs, log_path, append=builds > 1, target=target,
                                      report=report, shown=not quiet)
            if self.precompiled_header and any(PRECOMPILED_HEADER.search(f["key"]) for f in failed):
                report("   the precompiled support/test.hpp does not compile; rebuilding without it")
                self.precompiled_header = False
                self.configure()
                continue
            if any(STALE_PRECOMPILED_HEADER.search(f["log"]) for f in failed) \
                    and stale_rebuilds < STALE_REBUILDS:
                stale_rebuilds += 1
                report("   a header changed after it was precompiled (not the implementation's "
                       "fault); rebuilding the precompiled headers")
                for pch in self.dir.rglob("*.pch"):
                    pch.unlink()
                continue
            new = [f for f in failed if f["exclude"] and f["key"] not in self.excluded]
            self.failures += [f for f in failed if f not in self.failures]
            if not new:
                return
            exclusions += 1
            keys = self._exclusions(new, jobs, report)
            self.excluded += keys
            report(f"   {len(new)} source(s) do not compile; rebuilding without "
                   f"{len(keys)} of their sources or cases")
            self.configure()
            if exclusions == 2:  # what the second build found is left out, not built again
                return

    def _exclusions(self, failures: list[dict], jobs: int,
                    report: Callable[[str], None]) -> list[str]:
        """What to leave out for these failed sources: the cases that do not compile on
        their own ("<impl>|<source>@<line>"), or the whole source when none or all of them
        fail alone (the error is outside every case) or its copy without them failed too.
        Each failure records the names of its tests left out ("not_built")."""
        cases_of: dict[tuple[str, str], list[dict]] = {}
        for t in self.index():
            cases_of.setdefault((t["implementation"], t["source"]), []).append(t)
        keys = []
        for failure in failures:
            cases = cases_of.get((failure["implementation"], failure["source"]), [])
            failing = [] if failure["pruned"] or len(cases) < 2 else \
                self.failing_cases(failure, cases, jobs)
            if failing and len(failing) < len(cases):
                keys += [f"{failure['key']}@{c['line']}" for c in failing]
                failure["split"] = True
                failure["not_built"] = [c["name"] for c in failing]
                report(f"   {failure['source']}: {len(failing)} of its {len(cases)} tests do not "
                       "compile on their own; the others are built")
            else:
                keys.append(failure["key"])
                failure["split"] = False
                failure["not_built"] = [c["name"] for c in cases]
        return keys

    def failing_cases(self, failure: dict, cases: list[dict], jobs: int) -> list[dict]:
        """The cases of a failed source that fail to compile alone: each is compiled
        (syntax only) in a copy of the source with every other case blanked out, with the
        source's own command line from compile_commands.json."""
        commands = json.loads((self.dir / "compile_commands.json").read_text())
        source = ROOT / failure["source"]
        object_dir = f"CMakeFiles/{failure['executable']}.dir/"
        command = next((c for c in commands
                        if Path(c["file"]) == source and object_dir in c["command"]), None)
        if command is None:
            return []
        writer = index_writer()
        rel = failure["source"].removeprefix("suite/")
        text = source.read_text(errors="replace")
        scanned = writer.scan_source(rel, text)
        probes = self.dir / "saferecl" / "probes" / failure["implementation"]

        def fails_alone(case: dict) -> bool:
            probe = probes / f"{rel}@{case['line']}.cpp"
            probe.parent.mkdir(parents=True, exist_ok=True)
            probe.write_text(writer.isolated_case(text, scanned, case["line"], source))
            args = syntax_only(shlex.split(command["command"]), str(source), str(probe))
            result = subprocess.run(args, cwd=command["directory"], capture_output=True)
            return result.returncode != 0

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            verdicts = list(pool.map(fails_alone, cases))
        return [case for case, failed in zip(cases, verdicts) if failed]

    def _build_once(self, jobs: int, log_path: Path, append: bool, target: str | None,
                    report: Callable[[str], None], shown: bool) -> list[dict]:
        """One ninja run; its progress is a progress line when `shown` (-v: a line every
        PROGRESS_EVERY_SECONDS, as ninja's own count)."""
        start = time.monotonic()
        bar = console.progress("build steps") if shown else None
        args = ["cmake", "--build", str(self.dir), "-j", str(jobs)]
        if target:
            args += ["--target", target]
        args += ["--", "-k", "0"]
        lines = []
        with open(log_path, "a" if append else "w") as log:
            env = dict(os.environ)
            env.setdefault("CCACHE_SLOPPINESS", CCACHE_SLOPPINESS)
            env.setdefault("CCACHE_NOHASHDIR", CCACHE_NOHASHDIR)
            proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, env=env)
            assert proc.stdout is not None
            last_progress = 0.0
            for line in proc.stdout:
                log.write(line)
                lines.append(line.rstrip("\n"))
                progress = NINJA_PROGRESS.match(line)
                now = time.monotonic()
                if progress and bar:
                    bar.reached(int(progress[1]), int(progress[2]))
                elif progress and (now - last_progress > PROGRESS_EVERY_SECONDS
                                   or progress[1] == progress[2]):
                    report(f"   build {progress[1]}/{progress[2]} ({elapsed(start)})")
                    last_progress = now
            proc.wait()
        if bar and bar.total:
            bar.end()
        return parse_build_failures(lines, self.impls)
