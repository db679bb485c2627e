"""./conformance mutants: proves the battery can fail. Every catalogued mutant of the
reference runs against the tests its catalog entry names (or, with --full, the whole
battery), in the sanitizer tier the entry needs; mutants.json records the kill matrix.

Run-time mutants share one build per tier (the active mutant is SAFERECL_MUTANT at run
time). Compile-time API mutants change declarations, so each gets its own build in
build/api-mutants/; a killer that no longer compiles is a kill, charged by the compiler's
error lines to the TEST_CASEs whose bodies hold them (build.charged_tests, from the index's
`line`)."""

from __future__ import annotations

import datetime as dt
import os
import queue
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from driver import console, mutant_catalog
from driver.build import BuildTree, charged_tests, tree_dir
from driver.busy import busy_machine
from driver.console import conclude, elapsed, stage
from driver.ctest import failing_tests, run_ctest, test_environment, verdicts
from driver.environment import BASE_PACKAGES, ensure_packages
from driver.errors import EXIT_NONCONFORMING, EXIT_OK
from driver.index import sources_regex, suite_tests
from driver.options import SANITIZERS, MutantOptions, random_seed
from driver.paths import BUILD, ROOT
from driver.report_dir import ReportDir

# The killers' watchdog: a step of a killer takes milliseconds on the reference, so a tighter
# limit than the quick profile's only shortens the wait for deadlock mutants. Not-a-bug runs
# keep the profile's.
MUTANT_WATCHDOG_SECONDS = 3
API_MUTANTS_ROOT = BUILD / "api-mutants"  # a tree per worker, reconfigured per AM-xx
# API mutants build side by side, one core each: a build of a few killer sources is a chain
# (configure, library, precompiled header, sources, link) that gains little from a second
# core, so two chains at once nearly halve the step.
API_MUTANT_WORKERS = 2
MUTANTS = "mutants"  # the implementation that carries the mutation points


def run_once(build: BuildTree, mutant: dict, full: bool, jobs: int, out: Path, seed: int) -> dict:
    """Runs the battery against one mutant: the tests its catalog entry names, or with --full
    every test; a run-time mutant skips the compile-fail checks, which compile the same
    declarations whichever mutant is active. A not-a-bug variant runs only the normative
    tiers its entry names (`tiers`, default core; qoi and strict may legitimately fail), and
    none of them may fail."""
    filters: list[str] = []
    if mutant["status"] == "not-a-bug":
        tiers = "|".join(mutant.get("tiers", ["core"]))
        filters = ["-L", f"^tier=({tiers})$"]
    if not full:
        filters += ["-R", "|".join(f"({k})" for k in mutant_catalog.selected_tests(mutant))]
    if not mutant.get("compile_time"):  # a run-time switch cannot change what compiles
        filters += ["-LE", "^kind=compile-fail$"]
    junit = out / f"{mutant['id']}.junit.xml"
    extra_env = {"SAFERECL_MUTANT": mutant["id"]}
    if mutant["status"] != "not-a-bug":  # a deadlock mutant dies at the watchdog
        extra_env["SAFERECL_WATCHDOG_SECONDS"] = str(MUTANT_WATCHDOG_SECONDS)
    env = test_environment(1.0, seed, extra_env)
    started = time.monotonic()
    run_ctest(build.dir, [MUTANTS], jobs, junit, env, filters, quiet=True)
    ran = len(verdicts(junit))
    kills = failing_tests(junit, build.sanitizer)
    verdict, ok = mutant_catalog.decide(mutant["status"], ran, bool(kills))
    return {**mutant, "sanitizer": build.sanitizer, "tests_run": ran, "killed_by": kills,
            "time_to_first_kill": kills[0]["time"] if kills else None,
            "run_seconds": round(time.monotonic() - started, 1), "verdict": verdict, "ok": ok}


def run_runtime_mutant(build: BuildTree, mutant: dict, full: bool, jobs: int, out: Path,
                       seed: int) -> dict:
    """run_once, again with the next seed while a bug that must die survives."""
    attempt = 1
    while True:
        result = run_once(build, mutant, full, jobs, out, seed + attempt - 1)
        if not mutant_catalog.retry(mutant, attempt, result):
            return {**result, "attempts": attempt}
        attempt += 1


def not_built_kills(build: BuildTree, seconds: float) -> tuple[list[dict], int]:
    """The kills of a compile-time mutant that happen at build time: a killer test that no
    longer compiles is left out as NOT BUILT, so it never reaches CTest. Returns the kills
    (with the build's wall time as their time) and how many tests were left out. A source
    whose failing cases were found one by one charges those; a source left out whole charges
    its errors to the cases whose bodies hold them (charged_tests)."""
    tests_of: dict[str, list[tuple[int, str]]] = {}
    for t in build.index():
        if t["implementation"] == MUTANTS:
            tests_of.setdefault(t["source"], []).append((t["line"], t["name"]))
    kills: list[dict] = []
    selected = 0
    for failure in build.failures:
        if not failure["exclude"] or not failure["source"]:
            continue
        cases = tests_of.get(failure["source"], [])
        if failure.get("split"):
            selected += len(failure["not_built"])
            names = failure["not_built"]
        else:
            selected += len(cases)
            names = charged_tests(failure["source"], failure["log"], cases)
        kills += [{"test": name, "time": seconds, "not_built": True} for name in names]
    return kills, selected


def run_api_mutant(mutant: dict, full: bool, jobs: int, out: Path, seed: int,
                   tests: dict[str, list[str]], root: Path) -> dict:
    """A compile-time API mutant (catalog "compile_time": true): the mutants implementation
    built with SAFERECL_API_MUTANT=<n> in a tree under `root`, only the killers' sources
    unless --full."""
    number = int(mutant["id"].split("-", 1)[1])
    sources = "" if full else sources_regex(MUTANTS, mutant_catalog.selected_tests(mutant), tests)
    build = BuildTree(mutant["sanitizer"], [MUTANTS], {"SAFERECL_API_MUTANT": str(number)},
                      tree_dir(mutant["sanitizer"], root), sources=sources)
    started = time.monotonic()
    build.configure()
    build.build(jobs, out / f"build-{mutant['id']}.log", quiet=True)
    build_seconds = round(time.monotonic() - started, 1)
    result = run_once(build, mutant, full, jobs, out, seed)  # declarations: no race to retry
    not_built, not_built_tests = not_built_kills(build, build_seconds)
    kills = sorted(result["killed_by"] + not_built, key=lambda k: k["time"])
    ran = result["tests_run"] + not_built_tests
    broken = [f["executable"] for f in build.failures if not f["exclude"]]
    verdict, ok = mutant_catalog.decide(mutant["status"], ran, bool(kills), broken=bool(broken))
    return {**result, "tests_run": ran, "killed_by": kills,
            "time_to_first_kill": kills[0]["time"] if kills else None,
            "build_seconds": build_seconds, "broken_targets": broken,
            "run_seconds": round(time.monotonic() - started, 1), "verdict": verdict, "ok": ok}


def run_api_mutants(api: list[dict], options: MutantOptions, out: Path, seed: int,
                    tests: dict[str, list[str]]) -> Iterator[dict]:
    """The API mutants' results in catalog order, built API_MUTANT_WORKERS at a time, each
    worker in a tree of its own (API_MUTANTS_ROOT/worker-<n>)."""
    workers = max(1, min(API_MUTANT_WORKERS, options.jobs))
    free_roots: queue.SimpleQueue[Path] = queue.SimpleQueue()
    for n in range(workers):
        free_roots.put(API_MUTANTS_ROOT / f"worker-{n}")

    def run(mutant: dict) -> dict:
        root = free_roots.get()
        try:
            return run_api_mutant(mutant, options.full, max(1, options.jobs // workers), out,
                                  seed, tests, root)
        finally:
            free_roots.put(root)

    with ThreadPoolExecutor(workers) as pool:
        yield from pool.map(run, api)


MUTANTS_LOG = "mutants.log"  # one line per mutant: its verdict, kills and first killer


def result_line(result: dict) -> str:
    """A mutant's line in mutants.log (and on the console under -v)."""
    first = (f"first kill {result['time_to_first_kill']:.1f} s by "
             f"{result['killed_by'][0]['test']}"
             + (" (does not compile)" if result["killed_by"][0].get("not_built") else "")
             ) if result["killed_by"] else ""
    retried = f" (attempt {result['attempts']})" if result.get("attempts", 1) > 1 else ""
    return (f"   {'ok  ' if result['ok'] else 'BAD '} {result['id']:<6} {result['verdict']:<20}"
            f" {len(result['killed_by'])}/{result['tests_run']} test(s) failed  {first}{retried}")


def unexpected_line(result: dict, log: Path, build_log: Path | None) -> str:
    """The console's line for a mutant whose outcome its catalog entry does not expect (a bug
    that survives, a conforming variant that is killed, a build that breaks), and where to
    read more."""
    killers = ", ".join(k["test"] for k in result["killed_by"][:3]) + (
        ", ..." if len(result["killed_by"]) > 3 else "")
    line = (f"UNEXPECTED: {result['id']} ({result['status']}, {result['sanitizer']}): {result['verdict']}, "
            f"{len(result['killed_by'])}/{result['tests_run']} test(s) failed")
    if killers:
        line += f"\n    killed by: {killers}"
    if result.get("broken_targets") and build_log is not None:
        line += f"\n    build: {build_log}"
    return line + f"\n    detail: {log}"


def run_mutants(options: MutantOptions) -> tuple[int, Path]:
    """Every selected mutant in the tier its entry names; writes mutants.json."""
    started = time.monotonic()
    catalog = mutant_catalog.load(options.only)
    ensure_packages(BASE_PACKAGES)
    seed = options.seed if options.seed is not None else random_seed()
    report = ReportDir(options.out_base, "mutants")
    tests = suite_tests()
    results = []
    progress: console.Progress | None = None  # made when the first mutant starts: after its build

    def starting(label: str) -> None:
        nonlocal progress
        progress = progress or console.progress("mutants", total=len(catalog))
        if progress:
            progress.started_item(label)

    def record(result: dict) -> None:
        """The mutant's line into mutants.log (-v: on the console), and on the progress line;
        an outcome its entry does not expect gets a line of its own at once."""
        console.detail(report / MUTANTS_LOG, result_line(result))
        if progress:
            build_log = report.final / f"build-{result['id']}.log" if result.get("compile_time") else None
            progress.finished(result["verdict"], unexpected=None if result["ok"] else
                              unexpected_line(result, report.final / MUTANTS_LOG, build_log))
        results.append(result)

    for sanitizer in SANITIZERS:
        batch = [m for m in catalog if m["sanitizer"] == sanitizer and not m.get("compile_time")]
        if not batch:
            continue
        stage(f"mutants under {sanitizer}: build")
        # Only the catalogued tests run: compile only the sources defining them.
        sources = "" if options.full else sources_regex(
            MUTANTS, [k for m in batch for k in mutant_catalog.selected_tests(m)], tests)
        build = BuildTree(sanitizer, [MUTANTS], {}, tree_dir(sanitizer), sources=sources)
        build.configure()
        build.build(options.jobs, report / f"build-{sanitizer}.log")
        stage(f"mutants under {sanitizer}: {len(batch)} mutant(s)"
              + (f", beside {options.busy} spinning processes (--busy)" if options.busy else ""))
        with busy_machine(options.busy):
            for mutant in batch:
                starting(f"{mutant['id']} ({sanitizer})")
                record(run_runtime_mutant(build, mutant, options.full, options.jobs, report.path, seed))
        if progress:
            progress.end()
    api = [m for m in catalog if m.get("compile_time")]  # declarations: one build per mutant
    if api:
        stage(f"compile-time API mutants: one build each in {API_MUTANTS_ROOT.relative_to(ROOT)}")
        api_results = run_api_mutants(api, options, report.path, seed, tests)
        for mutant in api:  # the results come in this order, API_MUTANT_WORKERS at a time
            starting(f"{mutant['id']} (build and run)")
            record(next(api_results))
        if progress:
            progress.end()
    report.write_json("mutants.json", {"seed": seed, "full": options.full, "mutants": results})
    report.write_json("run.json", {"command": "mutants", "seed": seed, "full": options.full,
                                   "busy_processes": options.busy,
                                   "date": dt.datetime.now().isoformat(timespec="seconds"),
                                   "host_cores": os.cpu_count(), "source_dir": str(ROOT)})
    report.render(title="saferecl mutant sweep")  # the kill matrix and mutant coverage
    final = report.publish()
    bad = [r["id"] for r in results if not r["ok"]]
    times = sorted(r["time_to_first_kill"] for r in results
                   if r["time_to_first_kill"] is not None and r["status"] != "not-a-bug")
    if times:
        conclude(f"time to first kill: median {times[len(times) // 2]:.1f} s, max {times[-1]:.1f} s")
    conclude(f"mutants: {len(results) - len(bad)}/{len(results)} as expected"
             + (f"; NOT as expected: {', '.join(bad)}" if bad else "") + f"  ({elapsed(started)})")
    conclude(f"kill matrix: {final / 'mutants.json'}; report: {final / 'report.html'}")
    conclude(f"each mutant's line: {final / MUTANTS_LOG}")
    return (EXIT_OK if not bad else EXIT_NONCONFORMING), final


def command(args) -> int:
    code, _ = run_mutants(MutantOptions(only=args.only, full=args.full, jobs=args.jobs,
                                        out_base=args.out, seed=args.seed, busy=args.busy))
    return code
