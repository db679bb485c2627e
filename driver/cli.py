"""saferecl driver: build the battery, run it against implementations, write the reports.

    ./conformance list                 implementations: available, or why not
    ./conformance run  [options]       the conformance run (the main job)
    ./conformance mutants [--only ID]  prove the battery can fail: every mutant must die
    ./conformance test [options]       saferecl's own tests (CI runs this)
    ./conformance bench [options]      benchmarks across implementations (README: Benchmarks)
    ./conformance compare OLD NEW      regressions and progressions between two runs
    ./conformance merge DIR...         the shards of one run (run --shard K/N) into one report
    ./conformance vendor-library       the reference as a vendor's library (README: Testing
                                       your own implementation); prints its path
    ./conformance runtime libc++       a libc++ instrumented for TSan, built from the
                                       distribution's source of the compiler's LLVM; cached
    ./conformance repro TEST           a standalone reproducer of one test's verdict

The driver only orchestrates: packages, CMake, CTest and the reports. Test logic lives in
suite/, implementation logic in reference-impl/ and adapters/.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from driver import compilers, console, cxx_runtime, language
from driver.commands import bench, compare, merge, mutants, repro, run, runtime, test, vendor_library
from driver.commands import list as list_command
from driver.errors import EXIT_ENVIRONMENT, EXIT_INTERRUPTED, EXIT_USAGE, EnvironmentProblem, UsageError
from driver.options import PROFILES, SANITIZERS
from driver.paths import DEFAULT_OUT

DEFAULT_JOBS = os.cpu_count() or 2


def _seed(text: str) -> int:
    return int(text, 0)


def _std_adapter_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--std-include", action="append", metavar="DIR",
                   help="std adapter: include directory with <hazard_pointer>/<rcu> (repeatable)")
    p.add_argument("--std-flags", metavar="FLAGS",
                   help="std adapter: extra compile flags, e.g. '-std=c++2c -stdlib=libc++'")
    p.add_argument("--std-libs", metavar="LIBS", help="std adapter: extra link libraries or flags")


def _compiler_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cxx", metavar="PATH",
                   help="C++ compiler (default: $CXX, else clang++), e.g. clang++-19 or g++-12; "
                        "its build trees are build/<tier>-<compiler>")
    p.add_argument("--std", choices=sorted(language.STANDARDS),
                   help="C++ standard of every translation unit (default: the newest the compiler "
                        "builds); its build trees get a -c++NN suffix")
    p.add_argument("--stdlib", choices=language.STDLIBS,
                   help="standard library of every translation unit (clang's -stdlib=; default: "
                        "the compiler's); Debian's libc++ is linked statically")
    p.add_argument("--stdlib-include", action="append", metavar="DIR",
                   help="a standard library built from source: its header directory, replacing "
                        "the compiler's (-nostdinc++ -isystem DIR; repeatable)")
    p.add_argument("--stdlib-libdir", action="append", metavar="DIR",
                   help="... and its library directory (-L DIR with an rpath; repeatable)")


def _tsan_runtime_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tsan-runtime", default="auto", choices=cxx_runtime.CHOICES,
                   help="tsan tier with --stdlib libc++: the libc++ built by './conformance runtime "
                        "libc++' (instrumented), Debian's with link-time annotations (annotated), "
                        "or as it is (plain: its races are INCONCLUSIVE); auto (default): "
                        "instrumented when cached, else annotated when TSan cannot see it")


def _implementation_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sanitizer", default="tsan", choices=sorted(SANITIZERS),
                   help="tier: tsan (default), asan, none (optimized)")
    _std_adapter_options(p)
    _compiler_option(p)
    _tsan_runtime_option(p)


def _jobs_and_out(p: argparse.ArgumentParser, what: str = "parallel build and test jobs") -> None:
    p.add_argument("--jobs", type=int, default=DEFAULT_JOBS, help=f"{what} (default: cores)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="report base directory (default: reports/out)")


def _run_options(p: argparse.ArgumentParser) -> None:
    _jobs_and_out(p)
    p.add_argument("--seed", type=_seed,
                   help="SAFERECL_SEED for every random choice (default: random, printed)")
    p.add_argument("--busy", type=int, default=0, metavar="N",
                   help="run the tests beside N processes spinning at normal priority, as on a "
                        "shared CI runner (verdicts must not change; the load average goes in run.json)")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="conformance", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = top.add_subparsers(dest="command", required=True, metavar="command")

    p = sub.add_parser("list", help="implementations: available, or why not")
    _implementation_options(p)
    p.set_defaults(func=list_command.command)

    p = sub.add_parser("run", help="run the battery and write the reports")
    _implementation_options(p)
    _run_options(p)
    p.add_argument("--impl", help="comma-separated implementations (default: every available one)")
    p.add_argument("--profile", default="quick", choices=list(PROFILES),
                   help="stress duration: quick (default), full, soak")
    p.add_argument("--scale", type=float, help="SAFERECL_STRESS_SCALE (overrides --profile)")
    p.add_argument("--timeout", type=int, metavar="SECONDS",
                   help="CTest timeout of one test case (default 300; stress tests 3x)")
    p.add_argument("--expect", type=Path, metavar="FILE",
                   help="known failures: this file instead of each adapter's expectations.json")
    p.add_argument("--update-expectations", action="store_true",
                   help="write the known failures from this run (into --expect FILE, or each "
                        "adapters/<impl>/expectations.json), keeping the reasons written")
    p.add_argument("--shard", metavar="K/N",
                   help="only shard K of N of the selection (by source, deterministic); "
                        "./conformance merge joins the shards' report directories")
    p.add_argument("--durations", type=Path, metavar="RESULTS",
                   help="with --shard: balance the shards by the test times of this earlier "
                        "results.json (or report directory)")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="run the tests N times, the seed rotating (seed, seed+1, ...); the report "
                        "keeps each test's first failure and its seed, for replay (e.g. with "
                        "--profile soak, nightly)")
    _console_options(p, "CTest's output as it comes (it always goes to ctest.log in the report directory)")
    p.add_argument("ctest_args", nargs="*", metavar="-- CTEST-ARGS",
                   help="extra arguments for ctest after --, e.g. -- -R try_protect")
    p.set_defaults(func=run.command)

    p = sub.add_parser("compare", help="regressions and progressions between two runs")
    p.add_argument("old", type=Path, help="the earlier run: a report directory or its results.json")
    p.add_argument("new", type=Path, help="the later run")
    p.add_argument("--markdown", type=Path, metavar="FILE", help="also write the Markdown to FILE")
    p.add_argument("--html", type=Path, metavar="FILE", help="write the comparison as a page")
    p.add_argument("--as", dest="as_implementation", metavar="A=B",
                   help="compare only implementation A of OLD with implementation B of NEW, e.g. "
                        "reference=std: the reference's verdicts against the std adapter's (OLD "
                        "and NEW may be one run of both)")
    p.set_defaults(func=compare.command)

    p = sub.add_parser("merge", help="the shards of one run (run --shard K/N) into one report")
    p.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="the shards' report directories")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="report base directory (default: reports/out)")
    p.set_defaults(func=merge.command)

    p = sub.add_parser("mutants", help="prove the battery can fail: run it against every mutant")
    _run_options(p)
    _compiler_option(p)
    p.add_argument("--only", nargs="+", metavar="ID", help="only these mutants (e.g. MH-01 MR-03)")
    p.add_argument("--full", action="store_true",
                   help="run the whole battery per mutant, not only the catalogued killers")
    _console_options(p, "each mutant's verdict and kills as it ends (always in mutants.log in the "
                        "report directory)")
    p.set_defaults(func=mutants.command)

    # Always the optimized tier, and nothing random: only the std adapter's options.
    p = sub.add_parser("bench", help="benchmarks across implementations (optimized tier)")
    _std_adapter_options(p)
    _compiler_option(p)
    _jobs_and_out(p, "parallel build jobs")
    p.add_argument("--impl", help="comma-separated implementations (default: every available "
                   "one; the reference is always measured, for the ratios)")
    p.add_argument("--reps", type=int, default=5,
                   help="repetitions of every case and implementation (default 5)")
    p.add_argument("--min-time", type=float, default=0.1, metavar="SECONDS",
                   help="Google Benchmark's minimum time of one measurement (default 0.1)")
    p.add_argument("--filter", metavar="REGEX", help="only the cases it matches, e.g. '^rcu/'")
    p.add_argument("--case-timeout", type=float, default=20, metavar="SECONDS",
                   help="a case that takes longer is reported as timed out (default 20)")
    p.add_argument("--wait-load", type=float, default=0, metavar="SECONDS",
                   help=f"wait up to this long for a 1-minute load average under "
                        f"{bench.BENCH_QUIET_LOAD} before measuring (default 0)")
    _console_options(p, "each case's medians as it ends (always in bench.log in the report directory)")
    p.set_defaults(func=bench.command)

    p = sub.add_parser("vendor-library", help="build the reference as a vendor's library in a "
                       "tier and mode (the README's std recipes); prints its path")
    p.add_argument("--sanitizer", default="tsan", choices=sorted(SANITIZERS),
                   help="tier of the run that will link it: tsan (default), asan, none")
    _compiler_option(p)
    _tsan_runtime_option(p)
    p.add_argument("--jobs", type=int, default=DEFAULT_JOBS, help="parallel build jobs (default: cores)")
    p.set_defaults(func=vendor_library.command)

    p = sub.add_parser("runtime", help="build a libc++ instrumented for TSan from the distribution's "
                       "source of the compiler's LLVM, into a cache every later run uses; prints its path")
    p.add_argument("library", choices=["libc++"], help="the runtime (libc++ and libc++abi)")
    p.add_argument("--sanitizer", default="tsan", choices=["tsan"], help="the instrumentation (tsan)")
    p.add_argument("--cxx", metavar="PATH", help="the clang whose LLVM it is, e.g. clang++-22 "
                   "(default: $CXX, else clang++)")
    p.add_argument("--source", type=Path, metavar="FILE",
                   help="the source package's orig tarball, already downloaded (no root needed)")
    p.add_argument("--jobs", type=int, default=DEFAULT_JOBS, help="parallel build jobs (default: cores)")
    p.set_defaults(func=runtime.command)

    p = sub.add_parser("repro", help="a standalone directory that reproduces one test's verdict "
                       "outside this repository (build.sh, run.sh, README)")
    p.add_argument("test", help="the test: its CTest name (impl/name), its name or a unique part of it, "
                   "or a failed test's output file (outputs/NNNN-....log)")
    p.add_argument("--impl", help="the implementation, when several ran the test")
    p.add_argument("--run", type=Path, metavar="DIR",
                   help="the run's report directory to take the configuration from (default: reports/out/latest)")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="where to write the reproducer (default: DIR/repro/<test>)")
    p.set_defaults(func=repro.command)

    p = sub.add_parser("test", help="saferecl's own tests (what CI runs)")
    _implementation_options(p)
    _run_options(p)
    _console_options(p, "each step's stream as it comes: CTest's output, each mutant's line")
    p.set_defaults(func=test.command)
    return top


def _console_options(p: argparse.ArgumentParser, stream: str) -> None:
    """-v and -q (driver/console.py's levels); `stream` says what -v prints."""
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("-v", "--verbose", action="store_true",
                       help=f"print {stream}; by default the console shows a progress line and the "
                            "unexpected results")
    shown.add_argument("-q", "--quiet", action="store_true", help="print only the end: summary and paths")


def language_request(args: argparse.Namespace) -> language.Request:
    """--std, --stdlib and the library directories, checked against --std-flags/--std-libs."""
    request = language.parse_request(args.std, args.stdlib, args.stdlib_include, args.stdlib_libdir)
    problems = language.contradictions(request, getattr(args, "std_flags", None),
                                       getattr(args, "std_libs", None))
    if problems:
        raise UsageError("; ".join(problems))
    return request


def _looks_like_path(word: str) -> bool:
    """A --std-libs word naming a file (flags such as -pthread or -lfoo do not)."""
    return word.startswith(("/", "./", "../")) or word.endswith((".a", ".so")) or ".so." in word


def check_paths(args: argparse.Namespace) -> None:
    """Every option naming a path names one that is there and readable, before anything is
    built: a missing directory must not surface later as "<hazard_pointer> not found"."""
    def check(option: str, path: str, directory: bool) -> None:
        p = Path(path)
        if not p.exists():
            raise UsageError(f"{option} {path}: no such {'directory' if directory else 'file'}")
        if directory and not p.is_dir():
            raise UsageError(f"{option} {path}: not a directory")
        if not directory and p.is_dir():
            raise UsageError(f"{option} {path}: a directory, not a file")
        if not os.access(p, os.R_OK | (os.X_OK if directory else 0)):
            raise UsageError(f"{option} {path}: not readable")

    for option, attribute in (("--std-include", "std_include"), ("--stdlib-include", "stdlib_include"),
                              ("--stdlib-libdir", "stdlib_libdir")):
        for d in getattr(args, attribute, None) or []:
            check(option, d, directory=True)
    for word in (getattr(args, "std_libs", None) or "").split():
        if _looks_like_path(word):
            check("--std-libs", word, directory=False)
    expect = getattr(args, "expect", None)
    if expect is not None:
        if getattr(args, "update_expectations", False) and not expect.exists():
            check("--expect", str(expect.parent), directory=True)  # the file is to be written
        else:
            check("--expect", str(expect), directory=False)


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if getattr(args, "cxx", None):  # every build tree of the command uses it (driver/compilers.py)
        os.environ["CXX"] = args.cxx
    if hasattr(args, "verbose"):
        console.set_level(console.VERBOSE if args.verbose else console.QUIET if args.quiet else console.NORMAL)
    try:
        check_paths(args)
        if hasattr(args, "std"):  # likewise the mode (driver/language.py)
            request = language_request(args)
            if hasattr(args, "tsan_runtime"):  # and its C++ runtime (driver/cxx_runtime.py)
                request = cxx_runtime.choose(request, args.sanitizer, compilers.requested(), args.tsan_runtime)
            language.select(request)
        return args.func(args)
    except UsageError as e:
        print(f"conformance: {e}", file=sys.stderr)
        return EXIT_USAGE
    except EnvironmentProblem as e:
        print(f"conformance: {e}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
