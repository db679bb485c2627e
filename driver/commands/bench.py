"""./conformance bench: the same operations through every adapter, next to baselines, in
the optimized tier (Google Benchmark). Each case runs as its own process, once per
implementation in turn (A B A B ...) for --reps rounds, so a drift of the machine hits every
implementation alike; bench.json gets medians, ratios to the reference measured in the same
run, every sample and the load average, and the reports package renders the table."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

from driver import console
from driver.build import BuildTree
from driver.console import conclude, elapsed, say, stage
from driver.ctest import EMPTY_JUNIT
from driver.environment import (BENCH_PACKAGES, default_selection, ensure_packages,
                                packages_for, parse_impls)
from driver.errors import EXIT_ENVIRONMENT, EXIT_OK, UsageError
from driver.options import BenchOptions, std_definitions
from driver.paths import ADAPTERS, BUILD, ROOT
from driver.report_dir import ReportDir
from driver.toolchain import toolchain
from reports import protocol
from reports.stats import format_ns, median, ratio

BENCH_BUILD_DIR = BUILD / "bench"  # the release preset's flags, benchmarks only
BENCH_QUIET_LOAD = 1.5  # 1-minute load average under which --wait-load stops waiting
# The capability a case needs, by name prefix (most specific first): the reason a binary
# without the case gives for its n/a.
BENCH_CASE_CAPABILITY = [("hp/batch_", "hp-batch"), ("hp/", "hazard-pointer"), ("rcu/", "rcu")]
# A library's own-API program (its fast paths at their best) and the column it makes.
NATIVE_SOURCE = "native.bench.cpp"  # in the adapter's folder
NATIVE_SUFFIX = "-native"


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def build_benchmarks(impls: list[str], std_opts: dict[str, str], jobs: int,
                     log_path: Path) -> tuple[list[dict], dict[str, Path]]:
    """Configures build/bench (release preset, SAFERECL_BENCHMARKS=ON, no battery sources) and
    builds bench/<impl>.bench for every available implementation. Returns implementations.json
    with `built`/`build_error` added, and the executables that were built."""
    # Build passes its std_options as -D definitions; the battery is left out entirely.
    build = BuildTree("none", impls, {**std_opts, "SAFERECL_BENCHMARKS": "ON"}, BENCH_BUILD_DIR,
                      sources="^$")
    build.configure()
    implementations = build.implementations()
    started = time.monotonic()
    result = subprocess.run(["cmake", "--build", str(build.dir), "-j", str(jobs),
                             "--target", "saferecl-benchmarks", "--", "-k", "0"],
                            cwd=ROOT, capture_output=True, text=True)
    log_path.write_text(result.stdout + result.stderr)
    failed = set(re.findall(r"^FAILED: .*?\b(?:bench/|CMakeFiles/)([\w-]+)\.bench\b",
                            result.stdout, re.M))
    if result.returncode != 0:  # a failed dependency (a library) leaves older programs behind
        failed |= stale_programs(build.dir, {impl["name"] for impl in implementations})
    say(f"   built in {elapsed(started)}" + (f"; failed: {', '.join(sorted(failed))}" if failed else ""))
    executables = {}
    with_natives = []
    for impl in implementations:
        exe = build.dir / "bench" / f"{impl['name']}.bench"
        impl["built"] = impl["available"] and impl["name"] not in failed and exe.is_file()
        impl["build_error"] = ""
        if impl["built"]:
            executables[impl["name"]] = exe
        elif impl["available"]:
            impl["build_error"] = f"its benchmark program did not build (see {log_path.name})"
        with_natives.append(impl)
        native = native_program(impl, build.dir, failed, log_path)
        if native is not None:
            with_natives.append(native)
            if native["built"]:
                executables[native["name"]] = build.dir / "bench" / f"{native['name']}.bench"
    return with_natives, executables


def stale_programs(build_dir: Path, impls: set[str]) -> set[str]:
    """The benchmark programs of `impls` (and their native ones) that the last build left out
    of date (a library they link failed to compile): what is on disk is an older build, which
    must not be measured as this one."""
    stale = set()
    for exe in (build_dir / "bench").glob("*.bench"):
        if exe.stem.removesuffix(NATIVE_SUFFIX) not in impls:
            continue
        dry_run = subprocess.run(["ninja", "-C", str(build_dir), "-n", f"bench/{exe.name}"],
                                 capture_output=True, text=True)
        if dry_run.returncode != 0 or "no work to do" not in dry_run.stdout:
            stale.add(exe.stem)
    return stale


def native_program(impl: dict, build_dir: Path, failed: set[str], log_path: Path) -> dict | None:
    """The column of adapters/<impl>/native.bench.cpp, the library through its own API,
    when the library is available and has such a program; None otherwise."""
    name = f"{impl['name']}{NATIVE_SUFFIX}"
    if not impl["available"] or not (ADAPTERS / impl["name"] / NATIVE_SOURCE).is_file():
        return None
    built = name not in failed and (build_dir / "bench" / f"{name}.bench").is_file()
    return {"name": name, "available": True, "reason": "", "native_of": impl["name"],
            "description": f"{impl['name']} through its own API, as its documentation recommends for speed",
            "built": built,
            "build_error": "" if built else f"its native benchmark program did not build (see {log_path.name})"}


def bench_cases(exe: Path) -> list[str]:
    listing = subprocess.run([str(exe), "--benchmark_list_tests"], capture_output=True, text=True)
    return listing.stdout.split() if listing.returncode == 0 else []


def split_case(case: str) -> tuple[str, int, str]:
    """"rcu/synchronize/real_time/threads:2" -> ("rcu/synchronize", 2, "real")."""
    threads = re.search(r"/threads:(\d+)$", case)
    name = re.sub(r"/(real_time|threads:\d+)", "", case)
    return name, int(threads[1]) if threads else 1, "real" if "/real_time" in case else "cpu"


def run_bench_case(exe: Path, case: str, min_time: float, timeout: float) -> dict:
    """One run of one case in its own process (an adapter may end the process: xenium's
    rcu_barrier exits 77). Returns {status, ns, cpu_ns, real_ns} or {status, reason}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        args = [str(exe), f"--benchmark_filter=^{re.escape(case)}$",
                f"--benchmark_min_time={min_time}", f"--benchmark_out={out}",
                "--benchmark_out_format=json"]
        try:
            proc = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "reason": f"did not finish within {timeout:g} s"}
        said = [line for line in proc.stderr.splitlines() if line.strip()]
        if proc.returncode == protocol.NOT_APPLICABLE:
            reason = next((line for line in said if protocol.NOT_APPLICABLE_PREFIX in line),
                          f"exit status {protocol.NOT_APPLICABLE}")
            return {"status": "n/a",
                    "reason": reason.replace(protocol.NOT_APPLICABLE_PREFIX, "").strip()}
        if proc.returncode != 0:
            how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
                   else f"exit status {proc.returncode}")
            return {"status": "failed", "reason": how + (": " + said[-1] if said else "")}
        runs = json.loads(out.read_text()).get("benchmarks", []) if out.is_file() else []
        run = next((r for r in runs if r.get("name") == case and r.get("run_type") == "iteration"), None)
        if run is None:
            return {"status": "failed", "reason": "no result in Google Benchmark's output"}
    to_ns = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[run.get("time_unit", "ns")]
    per = run.get("objects_per_iteration", 1.0) or 1.0  # suite/bench/bench_support.hpp
    cpu_ns, real_ns = run["cpu_time"] * to_ns / per, run["real_time"] * to_ns / per
    result = {"status": "ok", "cpu_ns": cpu_ns, "real_ns": real_ns,
              "ns": real_ns if split_case(case)[2] == "real" else cpu_ns}
    if "peak_unreclaimed" in run:  # suite/bench/bench_support.hpp
        result["peak_unreclaimed"] = run["peak_unreclaimed"]
    return result


BENCH_LOG = "bench.log"  # one line per case: each implementation's median and ratio


def case_line(case: str, row: dict[str, dict], measured: dict[str, Path]) -> str:
    """A case's line in bench.log (and on the console under -v)."""
    return f"   {case:<48} " + "  ".join(
        f"{impl} " + (format_ns(e["median_ns"]) + (f" ({e['ratio_vs_reference']:.2f}x)"
                                                   if impl != "reference" and "ratio_vs_reference" in e else "")
                      if e["status"] == "ok" else e["status"])
        for impl, e in row.items() if impl in measured)


def measure_benchmarks(executables: dict[str, Path], implementations: list[dict],
                       repetitions: int, min_time: float, timeout: float,
                       case_filter: str | None, log: Path, log_shown: Path) -> list[dict]:
    """Every case: `repetitions` rounds, each running the case once per implementation in
    the same order (A B A B ...), so slow drifts of the machine hit every implementation
    alike. A case that an implementation cannot run is n/a; one that fails or times out is
    not repeated for it, and is the console's unexpected line. Each case's line goes to
    `log` (named `log_shown` on the console); the console shows the progress line."""
    impls = [i["name"] for i in implementations]
    listed = {impl: bench_cases(exe) for impl, exe in executables.items()}
    cases = list(dict.fromkeys(c for impl in impls for c in listed.get(impl, [])))
    if case_filter:
        cases = [c for c in cases if re.search(case_filter, c)]
    cases.sort(key=lambda c: c.startswith("baseline/"))  # the implementations' cases first
    by_name = {i["name"]: i for i in implementations}
    entries = []
    progress = console.progress("cases", total=len(cases))
    for case in cases:
        samples: dict[str, list[dict]] = {impl: [] for impl in executables if case in listed[impl]}
        ended: dict[str, dict] = {}
        for round_number in range(1, repetitions + 1):
            if progress:
                progress.started_item(f"{case} round {round_number}/{repetitions}")
            for impl in samples:
                if impl in ended:
                    continue
                result = run_bench_case(executables[impl], case, min_time, timeout)
                if result["status"] == "ok":
                    samples[impl].append(result)
                else:
                    ended[impl] = result
        name, threads, clock = split_case(case)
        row = {}
        for impl in impls:
            entry = {"benchmark": name, "threads": threads, "case": case, "implementation": impl,
                     "time": clock}
            info = by_name[impl]
            if not info["available"]:
                entry.update(status="unavailable", reason=info["reason"])
            elif not info["built"]:
                entry.update(status="not built", reason=info["build_error"])
            elif impl not in samples and info.get("native_of"):
                entry.update(status="n/a", reason=f"{info['native_of']}'s own API is measured on its "
                             "fast paths only")
            elif impl not in samples:
                needs = next((cap for prefix, cap in BENCH_CASE_CAPABILITY if name.startswith(prefix)), "")
                entry.update(status="n/a", reason=f"the {impl} adapter lacks {needs}" if needs
                             else f"the {impl} benchmark program has no such case")
            elif impl in ended:
                entry.update(ended[impl])
            if impl in samples and samples[impl] and impl not in ended:
                runs = samples[impl]
                entry.update(status="ok", median_ns=median([r["ns"] for r in runs]),
                             cpu_ns=median([r["cpu_ns"] for r in runs]),
                             real_ns=median([r["real_ns"] for r in runs]),
                             samples_ns=[round(r["ns"], 3) for r in runs], repetitions=len(runs))
                peaks = [r["peak_unreclaimed"] for r in runs if "peak_unreclaimed" in r]
                if peaks:
                    entry["peak_unreclaimed"] = median(peaks)
            row[impl] = entry
        reference = row.get("reference", {}).get("median_ns")
        for entry in row.values():
            if "median_ns" in entry and reference:
                entry["ratio_vs_reference"] = ratio(entry["median_ns"], reference)
        entries += row.values()
        console.detail(log, case_line(case, row, executables))
        if progress:
            broken = {impl: e for impl, e in ended.items() if e["status"] in ("failed", "timeout")}
            progress.finished("failed" if broken else "measured", unexpected="\n".join(
                f"{e['status'].upper()}: {case} through {impl}: {e['reason']}\n    detail: {log_shown}"
                for impl, e in broken.items()) or None)
    if progress:
        progress.end()
    return entries


def run_benchmarks(options: BenchOptions) -> tuple[int, Path]:
    """./conformance bench: builds the benchmark programs, measures, writes bench.json and
    the report (its benchmark table) into reports/out/<timestamp>-bench/."""
    started = time.monotonic()
    ensure_packages(packages_for(options.impls, BENCH_PACKAGES))
    # The reference first and always: the ratios are against it, measured in the same run.
    impls = ["reference", *(i for i in options.impls if i != "reference")]
    repetitions, min_time, jobs = options.repetitions, options.min_time, options.jobs
    report = ReportDir(options.out_base, "bench")
    say(f"saferecl bench: implementations {', '.join(impls)}; {repetitions} repetitions of "
        f"{min_time:g} s per case; jobs {jobs}")

    stage(f"build ({BENCH_BUILD_DIR.relative_to(ROOT)})")
    implementations, executables = build_benchmarks(impls, options.std, jobs, report / "build.log")
    for impl in implementations:
        state = ("available" if impl["built"] else impl["build_error"]) if impl["available"] \
            else "unavailable: " + impl["reason"]
        say(f"   {impl['name']}: {state}")

    stage("measure")
    deadline = time.monotonic() + options.wait_load
    while load_average()[0] >= BENCH_QUIET_LOAD and time.monotonic() < deadline:
        time.sleep(10)
    load_before = load_average()
    if load_before[0] >= BENCH_QUIET_LOAD:
        say(f"   note: load average {load_before[0]} (>= {BENCH_QUIET_LOAD}): other work on this "
            "machine disturbs the measurements (--wait-load waits for a quieter moment)")
    measured_from = time.monotonic()
    entries = measure_benchmarks(executables, implementations, repetitions, min_time,
                                 options.case_timeout, options.case_filter,
                                 report / BENCH_LOG, report.final / BENCH_LOG)
    load_after = load_average()
    say(f"   measured in {elapsed(measured_from)}; load average before {load_before}, after {load_after}")

    stage("report")
    bench = {"schema": "saferecl-bench/1", "sanitizer": "none",
             "date": dt.datetime.now().isoformat(timespec="seconds"),
             "host_cores": os.cpu_count(), "repetitions": repetitions, "min_time_s": min_time,
             "order": "alternating: each repetition runs the case once per implementation, in turn",
             "load_average": {"before": load_before, "after": load_after},
             "implementations": implementations, "benchmarks": entries}
    report.write_json("bench.json", bench)
    report.write_json("implementations.json", implementations)
    report.write_json("run.json", {
        "command": "bench", "sanitizer": "none", "implementations": impls,
        "explicit_selection": options.explicit, "date": bench["date"], "host_cores": os.cpu_count(),
        "repetitions": repetitions, "min_time_s": min_time,
        "load_average_before": load_before, "load_average_after": load_after,
        "build_dir": str(BENCH_BUILD_DIR), "source_dir": str(ROOT),
        **toolchain(BENCH_BUILD_DIR)})
    # No tests: empty inputs for the reports, whose page is then the benchmark table.
    (report / "junit.xml").write_text(EMPTY_JUNIT)
    report.write_json("index.json", {"schema": "saferecl-index/1", "tests": []})
    report.write_json("build-failures.json", [])
    results = report.render(title="saferecl benchmarks")
    final = report.publish()
    if results is not None:
        conclude(f"report: {final / 'report.html'}#bench")
    conclude(f"bench.json: {final / 'bench.json'}; each case's line: {final / BENCH_LOG}")
    conclude(f"total time {elapsed(started)}")
    return (EXIT_OK if results is not None else EXIT_ENVIRONMENT), final


def command(args) -> int:
    selected = parse_impls(args.impl)
    if selected and any(n.startswith("mutant:") for n in selected):
        raise UsageError("bench measures implementations, not mutants")
    code, _ = run_benchmarks(BenchOptions(
        impls=selected or default_selection(), explicit=selected is not None,
        repetitions=args.reps, min_time=args.min_time, case_timeout=args.case_timeout,
        case_filter=args.filter, wait_load=args.wait_load, jobs=args.jobs, out_base=args.out,
        std=std_definitions(args.std_include, args.std_flags, args.std_libs)))
    return code

