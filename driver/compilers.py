"""The C++ compiler of a command: `--cxx PATH` (any command), else `CXX` in the environment,
else the presets' `clang++` (clang 14 on Debian 12).

A libc++ that ships <hazard_pointer> needs a recent clang and a libstdc++ needs g++, so the
battery must build with any of them: Debian's clang 14, 19 and 22 (`clang++-19`, ...) and
g++ 12 all take the tiers' flags (cmake/SafereclSanitizers.cmake). A chosen compiler gets
build trees of its own (build/<preset>-<compiler>/: CMake cannot switch the compiler of a
configured tree), is checked before CMake runs, and is named with its version in run.json
and the report header (driver/toolchain.py reads what the tree really used).

- A compiler that is not installed: a Debian one (clang++-N, g++-N, clang++, g++) is
  installed like every other package the driver needs (as root; otherwise the exact
  `apt-get install` line), anything else is an error naming the path.
- A compiler that cannot build a tier (no sanitizer runtime, too old for C++20) gets one
  line saying so, from compiling and linking a two-line program with the tier's flags.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from driver.environment import ensure_packages
from driver.errors import EnvironmentProblem

ENVIRONMENT = "CXX"
PRESET_COMPILER = "clang++"  # CMakePresets.json's
# The tiers' flags, as cmake/SafereclSanitizers.cmake sets them (the probe needs only the
# parts that can fail: the standard, the sanitizer runtime, threads).
TIER_FLAGS = {"tsan": ["-fsanitize=thread", "-O1"],
              "asan": ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-O1"],
              "tso": ["-fsanitize=thread", "-O2"],  # the instrumentation; the probe links TSan's runtime
              "none": ["-O2"]}
PROBE = "#include <atomic>\n#include <thread>\nint main() { std::atomic<int> n{0}; " \
        "std::thread t([&] { ++n; }); t.join(); return n - 1; }\n"
DEBIAN_CLANG = re.compile(r"^clang\+\+(?:-(\d+))?$")
DEBIAN_GCC = re.compile(r"^g\+\+(?:-(\d+))?$")


@dataclass(frozen=True)
class Compiler:
    command: str  # as given
    path: str  # resolved
    version: str  # first line of --version

def tag_of(command: str) -> str:
    """What names a compiler's build trees: the command's file name ("clang++-19", "g++-12")."""
    return re.sub(r"[^A-Za-z0-9+._-]", "_", Path(command).name)


def requested(cxx: str | None = None) -> str | None:
    return cxx or os.environ.get(ENVIRONMENT) or None


def debian_packages(command: str) -> list[str]:
    """The Debian packages that provide a compiler command and its sanitizer runtimes."""
    name = Path(command).name
    clang = DEBIAN_CLANG.match(name)
    if clang:
        return [f"clang-{clang[1]}", f"libclang-rt-{clang[1]}-dev"] if clang[1] else ["clang", "libclang-rt-dev"]
    gcc = DEBIAN_GCC.match(name)
    if gcc:
        return [f"g++-{gcc[1]}"] if gcc[1] else ["g++"]
    return []


def resolve(command: str) -> Compiler:
    path = shutil.which(command)
    if path is None:
        packages = debian_packages(command)
        if not packages:
            raise EnvironmentProblem(f"C++ compiler {command!r} not found (--cxx or CXX): give a path "
                                     "or a Debian compiler such as clang++-19 or g++-12")
        ensure_packages(packages)  # installs as root, otherwise raises with the apt-get line
        path = shutil.which(command)
        if path is None:
            raise EnvironmentProblem(f"{command} is still missing after installing {' '.join(packages)}")
    probe = subprocess.run([path, "--version"], capture_output=True, text=True)
    if probe.returncode != 0:
        raise EnvironmentProblem(f"{path} --version failed: not a compiler?")
    return Compiler(command, path, (probe.stdout.splitlines() or [""])[0].strip())


def check_tier(compiler: Compiler, sanitizer: str) -> None:
    """Raises EnvironmentProblem with one line when the compiler cannot build the tier."""
    if sanitizer == "tso" and "clang" not in compiler.version:
        raise EnvironmentProblem(f"{compiler.command} ({compiler.version}) cannot build the tso tier: it needs "
                                 "clang (-fsanitize=thread linked with -fno-sanitize-link-runtime)")
    with tempfile.TemporaryDirectory(prefix="saferecl-cxx-") as tmp:
        source, program = Path(tmp) / "probe.cpp", Path(tmp) / "probe"
        source.write_text(PROBE)
        args = [compiler.path, "-std=c++20", *TIER_FLAGS[sanitizer], "-pthread", str(source), "-o", str(program)]
        built = subprocess.run(args, capture_output=True, text=True)
        ran = subprocess.run([str(program)], capture_output=True, text=True) if built.returncode == 0 else None
    if built.returncode != 0 or ran is None or ran.returncode != 0:
        words = (built.stderr if built.returncode != 0 else (ran.stderr if ran else "")).strip().splitlines()
        first = next((w for w in words if "error" in w), words[0] if words else "no output")
        raise EnvironmentProblem(f"{compiler.command} ({compiler.version}) cannot build the {sanitizer} tier: "
                                 f"{first.strip()[:240]}"
                                 + (f" (Debian: apt-get install {' '.join(debian_packages(compiler.command))})"
                                    if debian_packages(compiler.command) else ""))


def selected(sanitizer: str) -> Compiler | None:
    """The requested compiler, resolved and checked for the tier; None for the presets'."""
    command = requested()
    if command is None:
        return None
    compiler = resolve(command)
    check_tier(compiler, sanitizer)
    return compiler
