"""One CMake build tree of the battery, and what its compiler said.

A tree is per sanitizer tier (the CMake preset) and set of implementations. `build()` builds
everything it can: sources that fail to compile against an implementation are recorded,
left out (SAFERECL_EXCLUDED_SOURCES: the index marks their tests NOT BUILT) and the rest is
rebuilt, so one broken test file, or a vendor header that rejects it, costs only its own
tests. The compiler's words are kept for the report (build-failures.json) and for the mutant
sweep, which charges each error to the TEST_CASE whose body holds it (`charged_tests`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

from driver import compilers, language
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
# ccache serves a TU that uses a precompiled header only with these (its manual,
# "Precompiled headers"); a user's own CCACHE_SLOPPINESS wins.
CCACHE_SLOPPINESS = "pch_defines,time_macros,include_file_mtime,include_file_ctime"


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
            failures.append({"implementation": impl, "source": "suite/" + obj[2],
                             "executable": obj[1], "exclude": True,
                             "key": f"{impl}|{obj[2]}", "log": log})
        else:
            failures.append({"implementation": None, "source": None, "executable": target,
                             "exclude": False, "key": target, "log": log})
    return failures


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
        builds = exclusions = 0
        while True:
            builds += 1
            failed = self._build_once(jobs, log_path, append=builds > 1, target=target,
                                      report=report)
            if self.precompiled_header and any(PRECOMPILED_HEADER.search(f["key"]) for f in failed):
                report("   the precompiled support/test.hpp does not compile; rebuilding without it")
                self.precompiled_header = False
                self.configure()
                continue
            new = [f for f in failed if f["exclude"] and f["key"] not in self.excluded]
            self.failures += [f for f in failed if f not in self.failures]
            if not new:
                return
            exclusions += 1
            self.excluded += [f["key"] for f in new]
            report(f"   {len(new)} source(s) do not compile; rebuilding without them")
            self.configure()
            if exclusions == 2:  # what the second build found is left out, not built again
                return

    def _build_once(self, jobs: int, log_path: Path, append: bool, target: str | None,
                    report: Callable[[str], None]) -> list[dict]:
        start = time.monotonic()
        args = ["cmake", "--build", str(self.dir), "-j", str(jobs)]
        if target:
            args += ["--target", target]
        args += ["--", "-k", "0"]
        lines = []
        with open(log_path, "a" if append else "w") as log:
            env = dict(os.environ)
            env.setdefault("CCACHE_SLOPPINESS", CCACHE_SLOPPINESS)
            proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, env=env)
            assert proc.stdout is not None
            last_progress = 0.0
            for line in proc.stdout:
                log.write(line)
                lines.append(line.rstrip("\n"))
                progress = NINJA_PROGRESS.match(line)
                now = time.monotonic()
                if progress and (now - last_progress > PROGRESS_EVERY_SECONDS
                                 or progress[1] == progress[2]):
                    report(f"   build {progress[1]}/{progress[2]} ({elapsed(start)})")
                    last_progress = now
            proc.wait()
        return parse_build_failures(lines, self.impls)
