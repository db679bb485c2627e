"""What a command was asked to do, as one value each, so that the functions that do it take
one argument instead of a dozen. The command line (cli.py) builds them; the self-test
(commands/test.py) builds its own."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from driver import console
from driver.language import Request
from driver.paths import DEFAULT_OUT

SANITIZERS = {"tsan": "tsan", "asan": "asan", "tso": "tso", "none": "release"}  # sanitizer -> CMake preset
PROFILES = {"quick": 1.0, "full": 10.0, "soak": 100.0}  # profile -> SAFERECL_STRESS_SCALE


def random_seed() -> int:
    return int.from_bytes(os.urandom(4), "little")


def std_definitions(include_dirs: list[str] | None, flags: str | None,
                    libs: str | None) -> dict[str, str]:
    """The std adapter's CMake cache entries. Always all three, empty when absent: CMake
    caches them, and a run without --std-* must not silently reuse an earlier run's vendor
    tree."""
    return {
        "SAFERECL_STD_INCLUDE_DIRS": ";".join(str(Path(p).resolve()) for p in include_dirs or []),
        "SAFERECL_STD_CXX_FLAGS": flags or "",
        "SAFERECL_STD_LINK_LIBRARIES": ";".join(shlex.split(libs or "")),
    }


@dataclass
class RunOptions:
    """One conformance run (`./conformance run`, and the self-test's runs)."""
    impls: list[str]  # adapter names, or mutant:<id> (one at most)
    explicit: bool = False  # chosen by name (--impl): an unavailable one fails the run
    sanitizer: str = "tsan"
    profile: str = "quick"
    scale: float | None = None  # SAFERECL_STRESS_SCALE; None: the profile's
    seed: int | None = None  # SAFERECL_SEED; None: random, printed
    jobs: int = os.cpu_count() or 2
    out_base: Path = DEFAULT_OUT
    std: dict[str, str] = field(default_factory=dict)  # std_definitions()
    ctest_args: list[str] = field(default_factory=list)
    timeout: int | None = None  # CTest TIMEOUT of one test; None: the CMake default
    build_root: Path | None = None  # None: build/
    sources: str = ""  # regex of the suite sources to build; "": all
    expect: Path | None = None  # --expect FILE; None: each adapter's expectations.json
    update_expectations: bool = False
    shard: str | None = None  # "K/N": only that part of the selection (reports/shards.py)
    durations: Path | None = None  # a previous results.json to balance the shards by
    repeat: int = 1  # rounds of CTest, seeds rotating (reports/soak.py)
    busy: int = 0  # processes spinning beside the tests (driver/busy.py)
    compiler: str | None = None  # None: --cxx / CXX / the presets'
    mode: Request | None = None  # standard and library; None: --std / --stdlib's
    # driver/console.py's level: normal (progress line), verbose, quiet; by default the command's
    console: str = field(default_factory=console.level)

    @property
    def stress_scale(self) -> float:
        return self.scale if self.scale is not None else PROFILES[self.profile]


@dataclass
class MutantOptions:
    """`./conformance mutants`."""
    only: list[str] | None = None  # catalog ids; None: all
    full: bool = False  # the whole battery per mutant, not only the catalogued killers
    busy: int = 0  # processes spinning beside the tests (driver/busy.py)
    jobs: int = os.cpu_count() or 2
    out_base: Path = DEFAULT_OUT
    seed: int | None = None


@dataclass
class BenchOptions:
    """`./conformance bench`."""
    impls: list[str]
    explicit: bool = False
    repetitions: int = 5
    min_time: float = 0.1  # seconds, Google Benchmark's --benchmark_min_time
    case_timeout: float = 20.0
    case_filter: str | None = None
    wait_load: float = 0.0  # seconds to wait for a quiet machine
    jobs: int = os.cpu_count() or 2
    out_base: Path = DEFAULT_OUT
    std: dict[str, str] = field(default_factory=dict)
