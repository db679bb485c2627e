"""./conformance run: the battery against the selected implementations, and its reports.

configure (the test index is written) -> build (sources that do not compile are left out
as NOT BUILT) -> CTest (junit.xml) -> the report directory gets the run's outputs and the
reports package writes results.json, summary.md and report.html. The exit status is 0
when nothing unexpected happened under the known failures (adapters/<impl>/expectations.json
or --expect FILE; an adapter without a file has none: every failure is unexpected): no new
failure, no expected failure that passed, no implementation chosen by name missing.
With --shard K/N only that part of the selection is built and run (driver/sharding.py);
run.json records what ./conformance merge needs to join the shards."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import time
from pathlib import Path

from driver import console, crash_stack, cxx_runtime, known_failures, repro, repro_record, sharding, timings
from driver.busy import busy_machine, load_average
from driver.build import BuildTree, tree_dir
from driver.console import conclude, elapsed, say, stage
from driver.ctest import EMPTY_JUNIT, LiveVerdicts, run_ctest, test_environment
from driver.environment import (active_mutant, default_selection, ensure_packages,
                                packages_for, parse_impls)
from driver.errors import EXIT_ENVIRONMENT, EXIT_NONCONFORMING, EXIT_OK, UsageError
from driver.options import RunOptions, random_seed, std_definitions
from driver.paths import ROOT
from driver.report_dir import ReportDir
from driver.toolchain import toolchain
from reports import shards, soak
from reports.console_end import console_end
from reports.index import read_index
from reports.junit import read_junit


def run_battery(options: RunOptions) -> tuple[int, Path]:
    """The conformance run. Returns (exit status, published report directory)."""
    started = time.monotonic()
    console.set_level(options.console)
    impls, mutant_env = active_mutant(options.impls)
    expected = known_failures.read(impls, options.expect)  # a malformed file stops us here
    if options.durations and not options.shard:
        raise UsageError("--durations balances shards: it needs --shard K/N")
    if options.repeat < 1:
        raise UsageError(f"--repeat {options.repeat}: at least 1")
    sources, shard = options.sources, None
    if options.shard:
        sources, mine, total = sharding.shard_sources(options.shard, options.sources, options.durations)
        shard = "/".join(str(n) for n in shards.parse_shard(options.shard))
    ensure_packages(packages_for(impls))
    scale = options.stress_scale
    seed = options.seed if options.seed is not None else random_seed()
    report = ReportDir(options.out_base, options.sanitizer)

    say(f"saferecl: implementations {', '.join(impls)}; sanitizer {options.sanitizer}; "
        f"profile {options.profile} (scale {scale}); seed {seed}; jobs {options.jobs}"
        + (f"; shard {shard}: {mine} of {total} sources" if shard else ""))
    if expected:
        say("known failures: " + ", ".join(f"{path} ({len(entries)})" for path, entries in expected))
    clock = timings.StageClock()
    stage("configure")
    build = BuildTree(options.sanitizer, impls, options.std,
                      tree_dir(options.sanitizer, options.build_root),
                      timeout=options.timeout, sources=sources,
                      compiler_command=options.compiler, mode=options.mode)
    with clock.stage("configure"):
        build.configure()
        mode, compiler = build.language(), build.compiler()
        runtime = cxx_runtime.describe(mode, compiler.command, compiler.path, options.sanitizer)
    say(f"   {compiler.version}; {mode.standard} ({mode.flag})")
    for line in cxx_runtime.header_lines(runtime):
        say("   " + line)
    implementations = build.implementations()
    for impl in implementations:  # the report's row names the mutant it ran
        if impl["name"] == "mutants" and mutant_env:
            impl["version"] += f"; active mutant {mutant_env['SAFERECL_MUTANT']}"
    available = [i["name"] for i in implementations if i["available"]]
    for impl in implementations:
        state = "available" if impl["available"] else "unavailable: " + impl["reason"]
        say(f"   {impl['name']}: {state}")

    stage("build")
    with clock.stage("build"):
        build.build(options.jobs, report / "build.log")
    for failure in build.failures:
        say(f"   NOT BUILT: {failure['source'] or failure['executable']}")

    stage("test")
    junit = report / "junit.xml"
    load = {"busy_processes": options.busy, "test_start": load_average()}
    with clock.stage("test"), busy_machine(options.busy):
        if options.busy:
            say(f"   beside {options.busy} spinning processes (--busy); load average {load['test_start'][0]}")
        run_tests(options, build, available, seed, scale, mutant_env, report,
                  [e for _, entries in expected for e in entries], runtime)
    load["test_end"] = load_average()

    if options.sanitizer in ("tsan", "asan") and available:  # a sanitizer crash that printed no stack
        with clock.stage("test"):
            crash_stack.collect(junit, build.dir, test_environment(scale, seed, mutant_env), report.path, OUTPUTS)

    stage("report")
    recorded = timings.timings(clock, junit, options.sanitizer, runtime)
    record_build(report, build, junit)
    report.copy_in(build.index_path, "index.json")
    report.write_json("implementations.json", implementations)
    report.write_json("build-failures.json", build.failures)
    report.write_json("expectations.json", known_failures.combined(expected))
    report.write_json("run.json", {
        "sanitizer": options.sanitizer, "profile": options.profile, "stress_scale": scale,
        "seed": seed, "implementations": impls, "explicit_selection": options.explicit,
        # The environment the run added for the tests (the active mutant): what a replay needs.
        "test_environment": mutant_env,
        # What ./conformance merge checks: shards of one run share all but "shard".
        "selection": {"implementations": impls, "sources": options.sources,
                      "ctest_args": options.ctest_args},
        "shard": shard, "source_revision": sharding.source_revision(), "repeat": options.repeat,
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "host_cores": os.cpu_count(), "load_average": load,
        "build_dir": str(build.dir), "source_dir": str(ROOT),
        "std_options": options.std, **mode.describe(), "cxx_runtime": runtime,
        "timings": recorded, **toolchain(build.dir)})
    if not junit.is_file():  # CTest did not run: CI still gets an (empty) junit.xml
        junit.write_text(EMPTY_JUNIT)
    results = report.render()
    final = report.publish()

    if results is not None:
        # The end fits a screen (reports/console_end.py); the rest is in the report files.
        conclude("\n".join(console_end(results, final / OUTPUTS)))
        conclude(known_failures.summary_line(results))
        conclude(f"report: {final / 'report.html'}  (summary: {final / 'summary.md'})")
        if options.update_expectations:
            available_tested = [n for n in impls if n in available]
            for path in known_failures.update(results, available_tested, options.expect,
                                              options.sanitizer):
                conclude(f"known failures written: {path}")
    conclude(f"reports: {final}  (latest: {final.parent / 'latest'})")
    for stream in sorted(final.glob("ctest*.log")):
        conclude(f"CTest's output: {stream}")
    if (final / OUTPUTS).is_dir() and any((final / OUTPUTS).iterdir()):
        conclude(f"failed tests' output (sanitizer reports included): {final / OUTPUTS}")
    conclude(timings.lines(recorded)[0] + f"; total {elapsed(started)} (the slowest tests: run.json, report.html)")
    unavailable = [n for n in impls if n not in available]
    if options.explicit and unavailable:
        conclude("selected but unavailable: " + ", ".join(unavailable))
    if results is None:
        return EXIT_ENVIRONMENT, final
    return (EXIT_OK if known_failures.exit_decision(results) else EXIT_NONCONFORMING), final


def record_build(report: ReportDir, build: BuildTree, junit: Path) -> None:
    """reproduce/ in the report: what ./conformance repro needs of the build of the tests that
    ran, kept with the run because a later run may reconfigure the tree (driver/repro_record.py)."""
    ran = {case.name for case in read_junit(junit).cases} if junit.is_file() else set()
    executables = [e.executable for e in read_index(build.index_path) if e.id in ran and e.executable]
    if not executables:
        return
    try:
        repro_record.write(report.path, build.dir, executables)
    except (OSError, ValueError, subprocess.SubprocessError, repro.ReproProblem) as problem:
        say(f"   the record of the build for ./conformance repro could not be written: {problem}")


STREAM = "ctest.log"  # CTest's whole output
OUTPUTS = "outputs"  # each failed test's output, sanitizer reports included


def run_ctest_shown(options: RunOptions, build: BuildTree, available: list[str], junit: Path,
                    env: dict[str, str], report: ReportDir, stream: str,
                    known: list[known_failures.ex.Expectation], runtime: dict) -> None:
    """CTest, its stream into the report directory; the console shows a progress line and
    the unexpected results (the default), the stream itself (-v) or nothing (-q). The lines
    name the files where they will be once the directory is published."""
    shown = console.progress("tests")
    run_ctest(build.dir, available, options.jobs, junit, env, options.ctest_args,
              watch=LiveVerdicts(shown, report / stream, report / OUTPUTS, report.final / OUTPUTS,
                                 read_index(build.index_path), known, options.sanitizer, runtime))


def run_tests(options: RunOptions, build: BuildTree, available: list[str], seed: int,
              scale: float, mutant_env: dict[str, str], report: ReportDir,
              known: list[known_failures.ex.Expectation], runtime: dict) -> None:
    """CTest over the available implementations into junit.xml; with --repeat N, N rounds
    with rotating seeds, joined by the soak report."""
    junit = report / "junit.xml"
    if available and options.repeat > 1:
        rounds = []
        for n in range(options.repeat):
            round_seed = (seed + n) & 0xFFFFFFFF
            say(f"   round {n + 1} of {options.repeat}: seed {round_seed}")
            path = report / f"junit-{n + 1}.xml"
            run_ctest_shown(options, build, available, path, test_environment(scale, round_seed, mutant_env),
                            report, f"ctest-{n + 1}.log", known, runtime)
            rounds.append((round_seed, path))
        soak.write(rounds, junit, report / "soak.json")
    elif available:
        env = test_environment(scale, seed, mutant_env)
        run_ctest_shown(options, build, available, junit, env, report, STREAM, known, runtime)


def command(args) -> int:
    selected = parse_impls(args.impl)
    code, _ = run_battery(RunOptions(
        impls=selected or default_selection(), explicit=selected is not None,
        sanitizer=args.sanitizer, profile=args.profile, scale=args.scale, seed=args.seed,
        jobs=args.jobs, out_base=args.out, ctest_args=args.ctest_args, timeout=args.timeout,
        std=std_definitions(args.std_include, args.std_flags, args.std_libs),
        expect=args.expect, update_expectations=args.update_expectations, shard=args.shard,
        durations=args.durations, repeat=args.repeat, busy=args.busy))  # the console's level: cli.main
    return code
