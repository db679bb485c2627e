"""The language standard and standard library of a build: `--std`, `--stdlib`,
`--stdlib-include`, `--stdlib-libdir` (every command that builds).

A standard library is validated in the mode it ships its facilities in (libc++ declares
<hazard_pointer> and <rcu> only in C++26 mode), and every translation unit of an executable
must agree on the library: cmake/SafereclLanguage.cmake gives the whole build the mode chosen
here. Three steps:

- `Request`: what the command line asked for; `contradictions()` rejects std-adapter flags
  that would silently disagree with it (a `-std=` or `-stdlib=` in --std-flags reaches only
  the tests, never the harness).
- `resolve()`: the compiler's spelling of the standard (`-std=c++26` or `-std=c++2c`), the
  newest standard the compiler builds the harness's headers in when none was asked for, and
  how the runtime links.
- `Language`: the CMake cache entries, and the suffix of the build tree's name, so a tree of
  another mode never reconfigures the default one.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from driver.compilers import PROBE as TIER_PROBE  # threads and atomics in the tier
from driver.errors import EnvironmentProblem, UsageError

STANDARDS = ("c++26", "c++23", "c++20")  # newest first: the default is the first that works
# Each standard's spellings, the final one first (compilers before its publication accept
# only the working name).
SPELLINGS = {"c++26": ("c++26", "c++2c"), "c++23": ("c++23", "c++2b"), "c++20": ("c++20", "c++2a")}
STDLIBS = ("libstdc++", "libc++")
# What "the compiler builds the harness in this mode" means: its headers and threads.
MODE_PROBE = "#include <memory>\n#include <mutex>\n#include <version>\n" + TIER_PROBE
STD_FLAG = re.compile(r"^-std=(?:c|gnu)\+\+(\w+)$")
STDLIB_FLAG = re.compile(r"^-stdlib=(\S+)$")


@dataclass(frozen=True)
class Request:
    """The command line's choice; None or empty: the default."""
    standard: str | None = None  # one of STANDARDS
    stdlib: str | None = None  # one of STDLIBS
    include_dirs: tuple[str, ...] = ()  # a library built from source: its headers
    library_dirs: tuple[str, ...] = ()  # ... and its libraries
    # TSan tier with an uninstrumented libc++: link suite/support/tsan/libcxx_runtime.cpp's
    # wrappers (driver/cxx_runtime.py decides).
    annotations: bool = False
    # The library was built with -fsanitize=thread: everything linking it needs TSan's runtime.
    instrumented: bool = False

    @property
    def is_default(self) -> bool:
        return self == Request()


@dataclass(frozen=True)
class Language:
    """A resolved mode: what the build tree gets."""
    standard: str  # c++20, c++23 or c++26
    flag: str  # the compiler's spelling, e.g. -std=c++2c
    stdlib: str | None  # None: the compiler's default
    include_dirs: tuple[str, ...] = ()
    library_dirs: tuple[str, ...] = ()
    static_runtime: bool = False
    stdlib_option: bool = True  # clang's -stdlib=; g++ has one library and no such option
    annotations: bool = False  # see Request.annotations
    instrumented: bool = False  # see Request.instrumented

    @property
    def stdlib_flags(self) -> list[str]:
        return [f"-stdlib={self.stdlib}"] if self.stdlib and self.stdlib_option else []

    def compile_flags(self) -> list[str]:
        flags = [self.flag] + self.stdlib_flags
        if self.include_dirs:
            flags += ["-nostdinc++", *(f"-isystem{d}" for d in self.include_dirs)]
        return flags

    def link_flags(self) -> list[str]:
        flags = list(self.stdlib_flags)
        for d in self.library_dirs:
            flags += [f"-L{d}", f"-Wl,-rpath,{d}"]
        return flags + (["-static-libstdc++"] if self.static_runtime else []) + \
            (["-fsanitize=thread"] if self.instrumented else [])

    def cmake_definitions(self) -> dict[str, str]:
        """Always every entry: CMake caches them, and a mode must not inherit an earlier one's."""
        return {"SAFERECL_CXX_STANDARD": self.standard.removeprefix("c++"),
                "SAFERECL_CXX_STANDARD_FLAG": self.flag,
                "SAFERECL_STDLIB": self.stdlib if self.stdlib_flags else "",
                "SAFERECL_STDLIB_INCLUDE_DIRS": ";".join(self.include_dirs),
                "SAFERECL_STDLIB_LIBRARY_DIRS": ";".join(self.library_dirs),
                "SAFERECL_STDLIB_STATIC": "ON" if self.static_runtime else "OFF",
                "SAFERECL_RUNTIME_ANNOTATIONS": "ON" if self.annotations else "OFF"}

    def describe(self) -> dict:
        """For run.json: the mode, as asked for and as built."""
        return {"cxx_standard": self.standard, "cxx_standard_flag": self.flag,
                "stdlib": self.stdlib or "compiler default",
                "stdlib_include_dirs": list(self.include_dirs),
                "stdlib_library_dirs": list(self.library_dirs),
                "stdlib_static": self.static_runtime, "runtime_annotations": self.annotations}


def tree_suffix(request: Request) -> str:
    """What a non-default mode adds to a build tree's name: "-c++26", "-libc++", and a hash of
    a source-built library's directories. The default mode keeps the default trees."""
    parts = []
    if request.standard:
        parts.append(request.standard)
    if request.stdlib:
        parts.append(request.stdlib)
    if request.include_dirs or request.library_dirs:
        dirs = "\n".join(request.include_dirs + ("",) + request.library_dirs)
        parts.append(hashlib.sha1(dirs.encode()).hexdigest()[:8])
    if request.annotations:
        parts.append("annotated")
    return "".join("-" + p for p in parts)


_requested = Request()


def select(request: Request) -> None:
    """The command line's mode, for every build tree of the command (like --cxx)."""
    global _requested
    _requested = request


def requested() -> Request:
    return _requested


def debian_packages(request: Request, compiler_command: str) -> list[str]:
    """Debian's libc++ of a clang++-N: libc++-N-dev and libc++abi-N-dev (none for a library
    built from source, or a compiler without a version suffix)."""
    version = re.match(r"^clang\+\+-(\d+)$", Path(compiler_command).name)
    if request.stdlib != "libc++" or request.include_dirs or not version:
        return []
    return [f"libc++-{version[1]}-dev", f"libc++abi-{version[1]}-dev"]


def parse_request(standard: str | None, stdlib: str | None, include_dirs: list[str] | None,
                  library_dirs: list[str] | None) -> Request:
    if standard is not None and standard not in STANDARDS:
        raise UsageError(f"--std {standard}: one of {', '.join(sorted(STANDARDS))}")
    if stdlib is not None and stdlib not in STDLIBS:
        raise UsageError(f"--stdlib {stdlib}: one of {', '.join(STDLIBS)}")
    for option, dirs in (("--stdlib-include", include_dirs), ("--stdlib-libdir", library_dirs)):
        for d in dirs or []:
            if not Path(d).is_dir():
                raise UsageError(f"{option} {d}: not a directory")
    return Request(standard, stdlib, tuple(str(Path(d).resolve()) for d in include_dirs or []),
                   tuple(str(Path(d).resolve()) for d in library_dirs or []))


def contradictions(request: Request, std_flags: str | None, std_libs: str | None) -> list[str]:
    """Why the std adapter's flags contradict the build's mode (empty: they do not). They reach
    only the tests, after the harness was built in the mode: a standard or library given there
    would mix two in one executable (or, as before --std existed, be silently overridden)."""
    problems = []
    for option, words in (("--std-flags", (std_flags or "").split()), ("--std-libs", (std_libs or "").split())):
        for word in words:
            std, stdlib = STD_FLAG.match(word), STDLIB_FLAG.match(word)
            if std and option == "--std-flags":
                spelled = next((s for s, names in SPELLINGS.items() if std[1] in (n[3:] for n in names)), None)
                if request.standard is None:
                    problems.append(f"{option} has {word}: choose the standard with --std "
                                    f"{spelled or 'c++26'}, which every translation unit gets")
                elif spelled != request.standard or word.startswith("-std=gnu"):
                    problems.append(f"{option} has {word}, which contradicts --std {request.standard}")
            elif stdlib and stdlib[1] != (request.stdlib or ""):
                problems.append(f"{option} has {word}, which contradicts "
                                + (f"--stdlib {request.stdlib}" if request.stdlib else
                                   f"the default standard library: use --stdlib {stdlib[1]}, "
                                   "which every translation unit gets"))
            elif word == "-nostdinc++" and option == "--std-flags":
                problems.append(f"{option} has -nostdinc++, which would give the tests other library "
                                "headers than the harness: use --stdlib-include DIR (and --stdlib-libdir DIR)")
    return problems


def _compiles(compiler: str, flags: list[str], link: list[str]) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="saferecl-std-") as tmp:
        source = Path(tmp) / "mode.cpp"
        source.write_text(MODE_PROBE)
        run = subprocess.run([compiler, *flags, "-pthread", str(source), *link, "-o", str(Path(tmp) / "mode")],
                             capture_output=True, text=True)
    return run.returncode == 0, run.stderr


def is_clang(compiler_path: str) -> bool:
    probe = subprocess.run([compiler_path, "--version"], capture_output=True, text=True)
    return "clang" in probe.stdout.lower()


@cache  # a command configures many trees of one mode
def resolve(request: Request, compiler_path: str) -> Language:
    """The mode the build gets with this compiler: the first spelling of the standard that
    builds MODE_PROBE (for no --std, of the newest standard that does), with the library's
    flags. Raises EnvironmentProblem when nothing does, with the compiler's words."""
    clang = is_clang(compiler_path)
    if request.stdlib == "libc++" and not clang:
        raise UsageError(f"--stdlib libc++ needs clang (-stdlib= is a clang option); {compiler_path} is not")
    # Debian's libc++-22-dev resolves the shared libc++.so to the LLVM 19 runtime: the
    # compiler's own libc++ is linked statically; a library built from source links from its
    # directories.
    static = request.stdlib == "libc++" and not request.library_dirs
    last_error = ""
    for standard in ([request.standard] if request.standard else STANDARDS):
        for spelling in SPELLINGS[standard]:
            candidate = Language(standard, f"-std={spelling}", request.stdlib, request.include_dirs,
                                 request.library_dirs, static, stdlib_option=clang,
                                 annotations=request.annotations, instrumented=request.instrumented)
            ok, last_error = _compiles(compiler_path, candidate.compile_flags(), candidate.link_flags())
            if ok:
                return candidate
    library = candidate.compile_flags()[1:] + candidate.link_flags()
    first = next((line for line in last_error.splitlines() if "error" in line), last_error.strip()[:240])
    packages = " (Debian: libc++-N-dev libc++abi-N-dev for clang++-N)" if request.stdlib == "libc++" else ""
    raise EnvironmentProblem(f"{compiler_path} cannot build {request.standard or 'C++20 or later'} with "
                             f"{' '.join(library) or 'its default library'}: {first.strip()}{packages}")
