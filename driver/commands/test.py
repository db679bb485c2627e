"""./conformance test: saferecl's own tests (what CI runs), in order of cost:

  1. the tooling's unit tests (pytest: reports/tests and driver/tests, with the reports'
     Chromium check of report.html), seconds;
  2. the battery passes against the reference implementation under TSan, ASan and in the
     store-buffer tier (tso); between the first two, the console's check in a terminal
     (driver/tests/test_console_tmux.py: a tmux pane reads a one-test run in the tsan tree
     the first one built); the conforming variants that rely on fences (TSO_CONFORMING) are
     spared in the tso tier by the tests of their catalog entries;
  3. the std adapter validates a standard-library-style include tree, under TSan with the
     default compiler, and optimized with g++ 12 + libstdc++ (libc++: below);
     in C++20 mode, where the tree announces nothing, it says why it is unavailable;
     under TSan with clang 22 + libc++, a tree that synchronizes through the C++ runtime
     (std::call_once) is conforming with the instrumented libc++ (built here once, then
     cached) and with the annotations, and not judged (INCONCLUSIVE) with neither;
     and ./conformance repro's directory for a mutant and for the vendor tree with a planted
     bug, copied out of the tree, gives the run's verdict and passes against the correct
     implementation (driver/repro_selftest.py);
  4. the reference on a slice of the battery, run whole and in 3 shards merged
     (`--shard K/3`, `./conformance merge`), has the same tests with the same verdicts; the
     adapter guide's worked example (adapters/example: <rcu> over a small library, through
     the adapter kit) passes the core tests of the <rcu> areas whose shapes the kit writes;
  5. every catalogued mutant is killed by the tests its catalog entry names, in its tier (the
     missing-fence mutants in the tso tier), and a third of the conforming variants, rotating
     with the seed, are spared (`./conformance mutants` sweeps them all; `--full` runs the
     whole battery per mutant);
  6. verdicts do not depend on the machine's load: half the reference's liveness-sensitive
     tests under TSan (by the seed), beside 4 spinning processes per core, get the verdicts of
     step 2's quiet run,
     and a mutant that hangs and one that stalls still die there, the same way.
The exit status is 0 only when every step passed; each step's time is printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from driver import compilers, cxx_runtime, libcxx_build, mutant_catalog, repro_selftest
from driver.build import BuildTree, tree_dir
from driver.busy import load_average
from driver.commands.mutants import run_mutants
from driver.commands.vendor_library import build_vendor_library
from driver.commands.run import run_battery
from driver.console import conclude, elapsed, say, stage
from driver.ctest import verdicts
from driver.environment import PYTHON_PACKAGES, ensure_packages
from driver.errors import EXIT_NONCONFORMING, EXIT_OK
from driver.index import sources_regex, suite_tests
from driver.language import Request
from driver.options import MutantOptions, RunOptions, random_seed
from driver.paths import ADAPTERS, BUILD, ROOT
from driver.report_dir import ReportDir
from reports import protocol
from reports.compare import Unreadable, compare, markdown, read_side
from reports.console_end import unexpected_results
from reports.merge import MergeRefused, merge

UNIT_TEST_DIRS = ["reports/tests", "driver/tests"]
CONSOLE_CHECK = "driver/tests/test_console_tmux.py"  # needs the tsan tree of the reference
CONSOLE_CHECK_REQUIRED = "SAFERECL_CONSOLE_CHECK_REQUIRED"  # set: the check may not skip
UNIT_TEST_PACKAGES = ["chromium", "python3-yaml", *PYTHON_PACKAGES]  # yaml: the CI examples' test
# The self-test configures about twenty build trees; through ccache (driver/build.py) those of
# the same compiler and tier share what does not depend on the implementation (the harness's
# support sources, an unchanged library), and the API mutants' trees what a patch leaves alone.
BUILD_CACHE_PACKAGES = ["ccache"]
STD_SELFTEST_ROOT = BUILD / "std-selftest"
STD_SELFTEST_INCLUDE = ADAPTERS / "std" / "selftest" / "include"
# The vendor tree whose setup synchronizes through the C++ runtime (std::call_once), searched
# before STD_SELFTEST_INCLUDE (which gives it <version>).
STD_SELFTEST_CALL_ONCE = ADAPTERS / "std" / "selftest" / "call_once"
# Each TSan runtime case of the call_once tree: (--tsan-runtime, the verdict std must get).
TSAN_RUNTIME_CASES = (("instrumented", "conforming"), ("annotated", "conforming"),
                      ("plain", "not judged in this tier"))
# Their slice: two sources of the <rcu> functions whose tests make the tree's first
# rcu_default_domain() calls from running threads (the race TSan must see or not judge; with
# neither runtime, 3 of their tests are INCONCLUSIVE).
TSAN_RUNTIME_AREA = r"saferecl\.rcu\.domain\.func"
TSAN_RUNTIME_SOURCES = rf"/{TSAN_RUNTIME_AREA}/(rcu_default_domain|rcu_synchronize_concurrent)\.pass\.cpp$"
# The slice of the battery the std self-test runs: the feature-test macros and API shape (what
# a vendor build gets wrong first) and one runtime area of each header.
STD_SELFTEST_AREAS = r"hazard\.pointer\.syn|rcu\.syn|saferecl\.hp\.holder\.mem|saferecl\.rcu\.domain\.func"
STD_SELFTEST_TESTS = rf"^std/({STD_SELFTEST_AREAS})"
# The same slice as suite sources (directories are named by stable name): only it is compiled.
STD_SELFTEST_SOURCES = rf"/({STD_SELFTEST_AREAS})/"
STD_SELFTEST_CAPABILITIES = {"hazard-pointer", "rcu", "hp-batch", "native-api"}
# A partial vendor tree, searched before STD_SELFTEST_INCLUDE: its <rcu> lacks rcu_obj_base. Its
# slice: the <rcu> areas in which some tests use rcu_obj_base and the others do not.
STD_SELFTEST_PARTIAL = ADAPTERS / "std" / "selftest" / "partial"
STD_PARTIAL_AREAS = r"saferecl\.rcu\.base|saferecl\.rcu\.domain\.func"
# Both standard libraries stay supported: the vendor tree over libstdc++ with g++ (optimized),
# and over libc++ with clang 22 under TSan (Debian's libc++-22-dev, linked statically: its
# shared library is LLVM 19's), in self_test_tsan_runtimes.
STD_SELFTEST_LIBRARIES = (("g++-12", "libstdc++"),)
# The shard self-test: the optimized tier (the cheapest build), a slice with doctest tests,
# API checks and compile-fail tests, in a build tree of its own.
SHARD_SELFTEST_ROOT = BUILD / "shard-selftest"
SHARD_SELFTEST_SOURCES = r"/(rcu\.syn|saferecl\.hp\.holder\.mem)/"
SHARD_SELFTEST_COUNT = 3
# The adapter guide's worked example: the core tests of the <rcu> areas whose shapes the kit
# writes (rcu_obj_base; lock, try_lock and unlock; rcu_synchronize, rcu_barrier, rcu_retire),
# optimized (the cheapest build), in a build tree of its own.
EXAMPLE_ROOT = BUILD / "example-selftest"
EXAMPLE_SOURCES = r"/(saferecl\.rcu\.base|saferecl\.rcu\.domain\.members|saferecl\.rcu\.domain\.func)/"
EXAMPLE_LABELS = "^tier=core$"
# The liveness check: the tests whose verdicts rest on time (stress runs judged by the stall
# detector, concurrent waits and barriers under the watchdog, thread exits, the qoi tier's
# "eventually" windows; not the litmus tests, whose 20,000 two-thread rendezvous take minutes
# beside spinners, though they pass) beside this many
# spinning processes per core; and the mutants that must still die there, each by a test of
# its catalog entry (regex), with that verdict and that mark in its headline.
LIVENESS_BUSY_PER_CORE = 4
# Beside the spinners each test takes about twice its quiet time: the check runs one share of
# the tests in LIVENESS_SHARES (every LIVENESS_SHARES-th, from an offset the seed chooses), so
# that consecutive seeds cover them all.
LIVENESS_SHARES = 2
LIVENESS_LABELS = "^(kind=(stress|concurrency|lifetime)|tier=qoi)$"
LIVENESS_EXCLUDED = "litmus"
LIVENESS_MUTANTS = (
    ("MR-29", "R33", protocol.VERDICT_TIMEOUT, protocol.TIMEOUT_PREFIX),  # a barrier asleep for ever
    ("MR-23", "RX-06", protocol.VERDICT_FAIL, protocol.STALL_MARK),  # grace periods never end
)


def unit_tests() -> bool:
    """The tooling's pytest suite, with the interpreter running the driver (Debian's). The
    reports' tests render report.html in Debian's Chromium (reports/tests/test_browser.py).
    The console's terminal check waits for a tsan tree (console_in_a_terminal)."""
    ensure_packages(UNIT_TEST_PACKAGES)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", f"--ignore={CONSOLE_CHECK}",
                             *UNIT_TEST_DIRS], cwd=ROOT)
    return result.returncode == 0


def console_in_a_terminal() -> bool:
    """The console's check in a real terminal (a tmux pane reading a one-test run), once the
    reference battery under TSan has built the tree it runs in; here a skip is a failure."""
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", CONSOLE_CHECK], cwd=ROOT,
                            env={**os.environ, CONSOLE_CHECK_REQUIRED: "1"})
    return result.returncode == 0


def vendor_std_options(library: Path, *trees: Path) -> dict[str, str]:
    """The std adapter pointed at the vendor-style tree (after `trees`, searched first) and its
    library (README's recipe)."""
    include = [*trees, STD_SELFTEST_INCLUDE, ROOT / "reference-impl" / "include"]
    return {"SAFERECL_STD_INCLUDE_DIRS": ";".join(str(d) for d in include),
            "SAFERECL_STD_CXX_FLAGS": "",
            "SAFERECL_STD_LINK_LIBRARIES": f"{library};-pthread"}


def self_test_std_adapter(sanitizer: str, jobs: int, out_base: Path, seed: int | None,
                          compiler: str | None = None, mode: Request | None = None) -> bool:
    """Proves that the `std` adapter validates a standard-library-style implementation.

    adapters/std/selftest/include is a vendor-style header tree: <hazard_pointer> and <rcu>
    declare the reference implementation under the standard names in namespace std, and a
    wrapper <version> (#include_next of the real one) announces __cpp_lib_hazard_pointer and
    __cpp_lib_rcu. The reference library is built first, as the vendor's library, with the
    same compiler, standard and standard library; then a slice of the battery runs through the
    std adapter with the vendor include and link options, in build trees of their own. True
    when the adapter found the tree and the slice passed."""
    what = f"{compiler or 'default compiler'}, {(mode or Request()).stdlib or 'default library'}, {sanitizer}"
    stage(f"std self-test: building the vendor library ({what})")
    library = build_vendor_library(sanitizer, jobs, compiler, mode)
    if library is None:
        say("   FAIL  the vendor library did not build")
        return False

    stage(f"std self-test: a slice of the battery through --impl std on the vendor tree ({what})")
    code, report = run_battery(RunOptions(
        impls=["std"], explicit=True, sanitizer=sanitizer, seed=seed, jobs=jobs,
        out_base=out_base / "std-self-test", ctest_args=["-R", STD_SELFTEST_TESTS],
        build_root=STD_SELFTEST_ROOT / "battery", sources=STD_SELFTEST_SOURCES,
        std=vendor_std_options(library), compiler=compiler, mode=mode))
    found = {i["name"]: i for i in json.loads((report / "implementations.json").read_text())}
    std = found.get("std", {})
    caps = set(std.get("capabilities", []))
    passed = sum(v == protocol.VERDICT_PASS for _, v, _ in verdicts(report / "junit.xml"))
    if not std.get("available") or caps != STD_SELFTEST_CAPABILITIES:
        say(f"   FAIL  std adapter on the vendor tree: capabilities {sorted(caps)}, "
            f"expected {sorted(STD_SELFTEST_CAPABILITIES)} ({std.get('reason', '')})")
        return False
    if code != EXIT_OK or passed == 0:
        say(f"   FAIL  the battery slice through std: exit {code}, {passed} passed ({report})")
        return False
    say(f"   PASS  std adapter found the vendor tree ({', '.join(sorted(caps))}); "
        f"{passed} tests passed ({report})")
    return mode is not None or std_unavailable_says_why(sanitizer, library)


def self_test_std_partial_tree(jobs: int, out_base: Path, seed: int | None) -> bool:
    """Proves that a missing piece costs only the tests that use it: through the std adapter, an
    <rcu> without rcu_obj_base (adapters/std/selftest/partial) still has capability rcu, the
    harness builds, each test that needs rcu_obj_base is NOT BUILT with a compiler message that
    names it, and every other test of the slice passes (optimized, the cheapest build)."""
    stage("std self-test: a partial vendor tree, <rcu> without rcu_obj_base (optimized)")
    library = build_vendor_library("none", jobs)
    if library is None:
        say("   FAIL  the vendor library did not build")
        return False
    _, report = run_battery(RunOptions(
        impls=["std"], explicit=True, sanitizer="none", seed=seed, jobs=jobs,
        out_base=out_base / "std-partial-self-test", ctest_args=["-R", rf"^std/({STD_PARTIAL_AREAS})"],
        build_root=STD_SELFTEST_ROOT / "partial", sources=rf"/({STD_PARTIAL_AREAS})/",
        std=vendor_std_options(library, STD_SELFTEST_PARTIAL)))
    results = json.loads((report / "results.json").read_text())
    std = next(i for i in results["implementations"] if i["name"] == "std")
    tests = [t for t in results["tests"] if t["implementation"] == "std"]
    by_verdict: dict[str, list[dict]] = {}
    for t in tests:
        by_verdict.setdefault(t["verdict"], []).append(t)
    not_built = by_verdict.get(protocol.VERDICT_NOT_BUILT, [])
    unblamed = [t["name"] for t in not_built
                if "rcu_obj_base" not in t.get("headline", "") + t.get("output_excerpt", "")]
    others = [t["name"] for v, ts in by_verdict.items()
              if v not in (protocol.VERDICT_PASS, protocol.VERDICT_NOT_BUILT, protocol.VERDICT_NOT_APPLICABLE)
              for t in ts]
    counts = ", ".join(f"{len(ts)} {v}" for v, ts in sorted(by_verdict.items()))
    right = ("rcu" in std.get("capabilities", []) and not_built and not unblamed and not others
             and by_verdict.get(protocol.VERDICT_PASS))
    say(f"   {'PASS' if right else 'FAIL'}  std on <rcu> without rcu_obj_base: {counts}"
        + (f"; NOT BUILT without naming rcu_obj_base: {unblamed[:3]}" if unblamed else "")
        + (f"; neither passed nor NOT BUILT: {others[:3]}" if others else "") + f" ({report})")
    return bool(right)


def self_test_tsan_runtimes(jobs: int, out_base: Path, seed: int | None) -> bool:
    """Proves that a TSan verdict on libc++ rests only on evidence TSan could see.

    The call_once vendor tree is correct, and synchronizes its setup only through
    std::call_once (adapters/std/selftest/call_once). Through the std adapter, with clang 22
    and libc++ under TSan: with the instrumented libc++ (./conformance runtime libc++, built
    once, then cached) and with the link-time annotations it must be conforming with no race
    report; with Debian's uninstrumented libc++ and no annotations, its races are
    INCONCLUSIVE and it is not judged, never NOT conforming."""
    compiler = "clang++-22"
    stage("TSan runtimes: the instrumented libc++ (./conformance runtime libc++)")
    toolchain = libcxx_build.toolchain_of(compilers.resolve(compiler).path)
    libcxx_build.build_runtime(toolchain, "tsan", jobs, say)
    ok = True
    for wanted, verdict in TSAN_RUNTIME_CASES:
        mode = cxx_runtime.choose(Request(stdlib="libc++"), "tsan", compiler, wanted)
        stage(f"TSan runtimes: the call_once vendor tree, libc++ {wanted}")
        library = build_vendor_library("tsan", jobs, compiler, mode)
        if library is None:
            say("   FAIL  the vendor library did not build")
            return False
        _, report = run_battery(RunOptions(
            impls=["std"], explicit=True, sanitizer="tsan", seed=seed, jobs=jobs,
            out_base=out_base / "tsan-runtime-self-test", ctest_args=["-R", rf"^std/{TSAN_RUNTIME_AREA}"],
            build_root=STD_SELFTEST_ROOT / "tsan-runtimes", sources=TSAN_RUNTIME_SOURCES,
            std=vendor_std_options(library, STD_SELFTEST_CALL_ONCE), compiler=compiler, mode=mode))
        results = json.loads((report / "results.json").read_text())
        std = next(i for i in results["implementations"] if i["name"] == "std")
        races = (report / "junit.xml").read_text(errors="replace").count("WARNING: ThreadSanitizer: data race")
        counts = f"{std['counts']['PASS']} PASS, {std['inconclusive']} INCONCLUSIVE, {races} race reports"
        judged_races = sum(t["verdict"] == protocol.VERDICT_FAIL and "ThreadSanitizer" in t["headline"]
                           for t in results["tests"])
        right = std["verdict"] == verdict and judged_races == 0 and (
            races == 0 if verdict == "conforming" else std["inconclusive"] > 0)
        ok = ok and right
        say(f"   {'PASS' if right else 'FAIL'}  libc++ {wanted}: {std['verdict']} (expected {verdict}); "
            f"{counts} ({report})")
    return ok


def std_unavailable_says_why(sanitizer: str, library: Path) -> bool:
    """In C++20 mode the vendor tree announces nothing (as libc++ does): the adapter must be
    unavailable and say which check failed, suggest the standard, and give the command line."""
    stage("std self-test: the vendor tree in C++20 mode must be unavailable, saying why")
    tree = BuildTree(sanitizer, ["std"], vendor_std_options(library),
                     tree_dir(sanitizer, STD_SELFTEST_ROOT / "diagnosis"), mode=Request("c++20"))
    tree.configure()
    std = {i["name"]: i for i in tree.implementations()}["std"]
    reason = std.get("reason", "")
    expected = ("<hazard_pointer> found but __cpp_lib_hazard_pointer undefined", "in C++20 mode: try --std c++26",
                "checked with: ")
    if std["available"] or not all(part in reason for part in expected):
        say(f"   FAIL  std in C++20 mode: available {std['available']}, reason {reason!r}")
        return False
    say(f"   PASS  std in C++20 mode: unavailable: {reason[:160]}...")
    return True


def self_test_shards(jobs: int, out_base: Path, seed: int | None) -> bool:
    """Proves `--shard` and `merge`: the reference on a slice of the battery, run once whole
    and once as 3 shards merged, must have the same tests with the same verdicts (and the
    same requirement cells), and every shard must have had tests of its own."""
    seed = seed if seed is not None else random_seed()
    out = out_base / "shard-self-test"

    def run(shard: str | None) -> Path:
        stage(f"shard self-test: {'shard ' + shard if shard else 'the whole slice'}")
        _, report = run_battery(RunOptions(
            impls=["reference"], explicit=True, sanitizer="none", seed=seed, jobs=jobs,
            out_base=out, build_root=SHARD_SELFTEST_ROOT, sources=SHARD_SELFTEST_SOURCES,
            shard=shard))
        return report

    whole = run(None)
    parts = [run(f"{k}/{SHARD_SELFTEST_COUNT}") for k in range(1, SHARD_SELFTEST_COUNT + 1)]
    stage("shard self-test: merge")
    merged = ReportDir(out, "merged")
    try:
        merge(parts, merged.path)
    except MergeRefused as e:
        say(f"   FAIL  the shards were refused: {e}")
        return False
    merged.render()
    merged_dir = merged.publish()
    try:
        comparison = compare(read_side(whole), read_side(merged_dir))
    except Unreadable as e:
        say(f"   FAIL  {e}")
        return False
    tests = len(read_side(whole).doc["tests"])
    per_shard = [len(read_side(p).doc["tests"]) for p in parts]
    if comparison.tests or comparison.rows or tests == 0 or 0 in per_shard:
        say(f"   FAIL  merged shards differ from the whole run ({len(comparison.tests)} test(s), "
            f"{len(comparison.rows)} row(s); tests per shard {per_shard} of {tests}):\n"
            + markdown(comparison))
        return False
    say(f"   PASS  {tests} tests, in shards of {'+'.join(map(str, per_shard))}: merged = whole "
        f"({merged_dir} = {whole})")
    return True


def unexpected_in(run: Path) -> str:
    """A run's unexpected results as its console's end lists them (for a failed step's line)."""
    results = run / "results.json"
    if not results.is_file():
        return f"no results: {run}"
    return "\n".join(unexpected_results(json.loads(results.read_text()), run / "outputs")) or str(run)


# Conforming variants whose correctness rests on fences, beside the reference (itself the
# asymmetric-fence design): the tso tier must spare them, as it spares the reference.
TSO_CONFORMING = ["NB-R20"]
# The self-test's sweep kills every catalogued bug, but spares only a share of the conforming
# variants: each runs its whole normative tier (tens of tests, a minute under TSan), and all
# of them would take half of the self-test. The share rotates with the seed (a third of the
# variants, in the sorted catalog's order), so every variant is swept in one CI run of three on
# average, and any run can be replayed; `./conformance mutants` sweeps them all.
CONFORMING_SHARES = 3


def tso_conforming(jobs: int, out_base: Path, seed: int | None) -> tuple[bool, str]:
    """Each of TSO_CONFORMING against the tests its catalog entry names, in the tso tier: no
    test may fail (a failure would be an execution x86 cannot have, or a test over-constraining)."""
    entries = {m["id"]: m for m in mutant_catalog.load(TSO_CONFORMING)}
    tests = suite_tests()
    bad = []
    for mutant in TSO_CONFORMING:
        patterns = entries[mutant]["tests"]
        code, report = run_battery(RunOptions(
            impls=[f"mutant:{mutant}"], explicit=True, sanitizer="tso", seed=seed, jobs=jobs,
            out_base=out_base / "tso-conforming", sources=sources_regex("mutants", patterns, tests),
            ctest_args=["-R", "|".join(patterns)]))
        ran = verdicts(report / "junit.xml")
        failed = [f"{name} {verdict}" for name, verdict, _ in ran if protocol.is_failing(verdict)]
        if not ran or failed:
            bad.append(f"{mutant}: " + ("; ".join(failed[:3]) if failed else "no test ran") + f" ({report})")
    return not bad, "\n".join(bad)


def sweep_selection(seed: int) -> tuple[list[str], list[str]]:
    """(the catalog ids this self-test sweeps, the conforming variants it leaves to other
    runs): every bug, and the conforming variants of share `seed % CONFORMING_SHARES` of
    the sorted list."""
    catalog = mutant_catalog.load(None)
    variants = sorted(m["id"] for m in catalog if m["status"] == "not-a-bug")
    share = seed % CONFORMING_SHARES
    left = [v for i, v in enumerate(variants) if i % CONFORMING_SHARES != share]
    return [m["id"] for m in catalog if m["id"] not in left], left


def mutant_sweep(jobs: int, out_base: Path, seed: int | None) -> tuple[bool, str]:
    """The catalogue's bugs, and a share of its conforming variants (sweep_selection); on
    failure, each mutant whose outcome its entry does not expect, with its verdict and first
    killers, so that the end of a CI log names it."""
    seed = seed if seed is not None else random_seed()
    selected, left = sweep_selection(seed)
    say(f"   conforming variants left to other seeds' runs ({len(left)}; seed {seed}, share "
        f"{seed % CONFORMING_SHARES + 1} of {CONFORMING_SHARES} swept): {', '.join(left)}; "
        "`./conformance mutants` sweeps them all")
    code, sweep = run_mutants(MutantOptions(only=selected, jobs=jobs, out_base=out_base, seed=seed))
    results = json.loads((sweep / "mutants.json").read_text())["mutants"]
    bad = [f"{r['id']} ({r['status']}, {r['sanitizer']}): {r['verdict']}; "
           + ("killed by " + ", ".join(k["test"] for k in r["killed_by"][:2]) if r["killed_by"]
              else f"none of its {r['tests_run']} test(s) failed")
           for r in results if not r["ok"]]
    return code == EXIT_OK, "\n".join(bad) + f"\n({sweep / 'mutants.log'})"


def liveness_under_load(quiet: Path | None, jobs: int, out_base: Path, seed: int | None) -> bool:
    """Proves that a verdict does not depend on the machine's load: the watchdog and the stall
    detector judge the time a test could run (suite/support/liveness.hpp), not wall time.

    The reference's liveness-sensitive tests under TSan (LIVENESS_LABELS) run again beside
    LIVENESS_BUSY_PER_CORE spinning processes per core (driver/busy.py), and each must get the
    verdict it got in the quiet run `quiet` (step 2); then a mutant that hangs and one that
    stalls (LIVENESS_MUTANTS) must still die beside the same load, the same way."""
    if quiet is None:
        say("   FAIL  no quiet TSan run of the reference to compare with")
        return False
    busy = LIVENESS_BUSY_PER_CORE * (os.cpu_count() or 2)
    out = out_base / "liveness-under-load"
    seed = seed if seed is not None else random_seed()
    share = seed % LIVENESS_SHARES
    stage(f"liveness under load: share {share + 1} of {LIVENESS_SHARES} (by the seed) of the reference's "
          f"{LIVENESS_LABELS} tests beside {busy} spinning processes")
    _, loaded = run_battery(RunOptions(impls=["reference"], explicit=True, sanitizer="tsan", seed=seed,
                                       jobs=jobs, out_base=out,
                                       ctest_args=["-L", LIVENESS_LABELS, "-E", LIVENESS_EXCLUDED,
                                                   "-I", f"{share + 1},,{LIVENESS_SHARES}"],
                                       busy=busy))
    before = {name: verdict for name, verdict, _ in verdicts(quiet / "junit.xml")}
    after = verdicts(loaded / "junit.xml")
    changed = [f"{name}: {before.get(name)} quiet, {verdict} under load"
               for name, verdict, _ in after if before.get(name) != verdict]
    load = json.loads((loaded / "run.json").read_text())["load_average"]
    ok = bool(after) and not changed
    say(f"   {'PASS' if ok else 'FAIL'}  {len(after)} tests, {len(changed)} verdict(s) changed under load "
        f"(load average {load['test_start'][0]} -> {load['test_end'][0]}; {loaded})"
        + "".join(f"\n         {line}" for line in changed))

    stage(f"liveness under load: a hang and a stall mutant beside {busy} spinning processes")
    _, sweep = run_mutants(MutantOptions(only=[m for m, *_ in LIVENESS_MUTANTS], jobs=jobs,
                                         out_base=out, seed=seed, busy=busy))
    results = {r["id"]: r for r in json.loads((sweep / "mutants.json").read_text())["mutants"]}
    for mutant, test, verdict, mark in LIVENESS_MUTANTS:
        kills = results.get(mutant, {}).get("killed_by", [])
        how = next((k for k in kills if test in k["test"] and k.get("verdict") == verdict
                    and mark in k.get("headline", "")), None)
        ok = ok and how is not None
        say(f"   {'PASS' if how else 'FAIL'}  {mutant} under load: "
            + (f"{verdict} by {how['test']} in {how['time']:.1f} s: {how['headline'][:160]}" if how else
               f"not killed by a {verdict} ({mark}) of {test}; kills: "
               + "; ".join(f"{k['test']} {k.get('verdict')}" for k in kills) or "none")
            + f" (load average {load_average()[0]})")
    return ok


def self_test_example(jobs: int, out_base: Path, seed: int | None) -> bool:
    """The worked example of adapters/README.md builds through the kit and passes its slice."""
    code, report = run_battery(RunOptions(
        impls=["example"], explicit=True, sanitizer="none", seed=seed, jobs=jobs,
        out_base=out_base / "example-self-test", build_root=EXAMPLE_ROOT, sources=EXAMPLE_SOURCES,
        ctest_args=["-L", EXAMPLE_LABELS]))
    passed = sum(v == protocol.VERDICT_PASS for _, v, _ in verdicts(report / "junit.xml"))
    if code != EXIT_OK or passed == 0:
        say(f"   FAIL  the worked example: exit {code}, {passed} passed ({report})")
        return False
    say(f"   PASS  the worked example: {passed} core tests passed ({report})")
    return True


def command(args) -> int:
    started = time.monotonic()
    steps: list[tuple[str, bool, str]] = []

    def step(name: str, check) -> None:
        """Runs one self-test; `check` returns whether it passed, or (passed, why it failed)."""
        stage(f"self-test: {name}")
        t0 = time.monotonic()
        outcome = check()
        ok, why = outcome if isinstance(outcome, tuple) else (outcome, "")
        steps.append((name, bool(ok), elapsed(t0), "" if ok else why))

    ensure_packages(BUILD_CACHE_PACKAGES)
    quiet: dict[str, Path] = {}  # the reference battery's report of each tier

    def reference_battery(sanitizer: str) -> tuple[bool, str]:
        code, quiet[sanitizer] = run_battery(RunOptions(
            impls=["reference"], explicit=True, sanitizer=sanitizer, seed=args.seed,
            jobs=args.jobs, out_base=args.out))
        return code == EXIT_OK, unexpected_in(quiet[sanitizer])

    step("unit tests of the tooling (pytest " + " ".join(UNIT_TEST_DIRS) + ")", unit_tests)
    for sanitizer in ("tsan", "asan", "tso"):
        step(f"reference battery under {sanitizer}", lambda s=sanitizer: reference_battery(s))
        if sanitizer == "tsan":
            step("the console in a terminal (tmux: a one-test run in the tsan tree just built)",
                 console_in_a_terminal)
    step("store buffers (tso): the conforming variants that rely on fences are spared ("
         + ", ".join(TSO_CONFORMING) + ")", lambda: tso_conforming(args.jobs, args.out, args.seed))
    step("std adapter on a vendor-style include tree",
         lambda: self_test_std_adapter("tsan", args.jobs, args.out, args.seed))
    for compiler, stdlib in STD_SELFTEST_LIBRARIES:
        step(f"std adapter on the vendor tree with {compiler} and {stdlib} (optimized)",
             lambda c=compiler, l=stdlib: self_test_std_adapter(
                 "none", args.jobs, args.out, args.seed, compiler=c, mode=Request(stdlib=l)))
    step("std adapter on a partial vendor tree: an <rcu> without rcu_obj_base costs only the tests "
         "that use it", lambda: self_test_std_partial_tree(args.jobs, args.out, args.seed))
    step("repro: a mutant's and a planted vendor bug's reproducers, copied out of the tree, give the run's "
         "verdict and pass against the correct implementation",
         lambda: repro_selftest.self_test(args.jobs, args.out, args.seed))
    step("TSan on libc++: instrumented and annotated conforming, neither not judged (call_once vendor tree)",
         lambda: self_test_tsan_runtimes(args.jobs, args.out, args.seed))
    step("3 shards merged equal one run (reference, release tier, a slice)",
         lambda: self_test_shards(args.jobs, args.out, args.seed))
    step("the adapter guide's worked example (adapters/example, through the kit) passes the core "
         "tests of its <rcu> slice", lambda: self_test_example(args.jobs, args.out, args.seed))
    step(f"mutants: each catalogued bug killed, one share in {CONFORMING_SHARES} of the conforming variants (by the seed) spared",
         lambda: mutant_sweep(args.jobs, args.out, args.seed))
    step(f"liveness under load: one share in {LIVENESS_SHARES} of the tests (by the seed) gets the same "
         "verdicts beside 4 spinning processes per core; a hang and a stall mutant still die",
         lambda: liveness_under_load(quiet.get("tsan"), args.jobs, args.out, args.seed))

    conclude("\n== self-test results")
    for name, ok, took, why in steps:
        conclude(f"   {'PASS' if ok else 'FAIL'}  {name}  ({took})"
                 + "".join(f"\n         {line}" for line in why.splitlines()))
    conclude(f"self-test total {elapsed(started)}")
    return EXIT_OK if all(ok for _, ok, _, _ in steps) else EXIT_NONCONFORMING
