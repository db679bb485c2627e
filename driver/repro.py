"""A standalone reproducer of one test's verdict (./conformance repro).

From a run's report directory (run.json: the build tree, the seed, the tier, the mode;
index.json: the test's source and executable; results.json: its verdict) and that build
tree (compile_commands.json: every translation unit's exact command; build.ninja: the
executable's link line), it writes a directory that builds and runs the one test case
outside this repository:

  README.md    the test, the paragraph it cites, the verdict expected, how it was made
  build.sh     compiles the test's source, the harness sources it links (doctest's main,
               the watchdog, ...) and the implementation's own library sources, with the
               run's exact flags, and links them as the run did (Makefile, make -j)
  run.sh       the test case alone (doctest --test-case), with the run's seed and
               environment; prints the status, the verdict and the sanitizer's report kind
  files/       the sources and headers it needs: only those the compiler read (its -M
               dependencies), from this repository, the build tree and any other
               non-system directory (a vendor's --std-include tree); libraries given by
               path (a vendor's --std-libs) under files/ too

Only Debian packages are needed besides (the compiler, doctest-dev, make, binutils'
ar). Paths are rewritten so the directory can be copied anywhere; a system path (/usr/...)
and a cached instrumented libc++ (~/.cache/saferecl) stay absolute, as the README says.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from driver import ctest
from driver.errors import UsageError
from driver.paths import ROOT
from reports import protocol
from reports.crash_stacks import DEADLY

# Paths the reproducer may refer to where they are: the system's and the user's caches.
SYSTEM_PREFIXES = ("/usr/", "/lib/", "/lib64/", "/etc/", "/opt/", "/proc/")
# The PCH the build uses in place of a first include (its .hxx names the header).
PCH_DROPPED = {"-Winvalid-pch", "-fpch-instantiate-templates"}


class ReproProblem(UsageError):
    pass


@dataclass
class Unit:
    """One translation unit of the reproducer."""
    source: Path  # as the build compiled it
    compiler: str
    args: list[str]  # the compile command without -o/-c/the source, paths as the build had them
    object_name: str
    library: str = ""  # the archive it goes into, "" for the executable itself
    object_path: str = ""  # the object the build made of it, relative to the build tree


@dataclass
class Plan:
    compiler: str
    units: list[Unit] = field(default_factory=list)
    link_flags: list[str] = field(default_factory=list)
    link_libraries: list[str] = field(default_factory=list)  # tokens; archives of `units` by name


# ------------------------------------------------------------------ finding the test

def report_dir(run: Path | None) -> Path:
    directory = (run or ROOT / "reports" / "out" / "latest").resolve()
    if directory.is_file():
        directory = directory.parent
    if not (directory / "run.json").is_file():
        raise ReproProblem(f"{directory}: not a run's report directory (no run.json); give one with --run DIR")
    return directory


def sanitized(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", name)[:120].strip("_")


def find_test(directory: Path, wanted: str, impl: str | None) -> dict:
    """The results.json entry of the test named by `wanted`: its CTest name ("impl/name"), its
    name, an output file of the run (outputs/NNNN-<name>.log), or a unique part of its name."""
    results = json.loads((directory / "results.json").read_text())
    tests = [t for t in results["tests"] if impl is None or t["implementation"] == impl]
    path = Path(wanted)
    if path.suffix == ".log" and (path.is_file() or (directory / "outputs" / path.name).is_file()):
        stem = re.sub(r"^\d{4}-", "", path.stem)
        found = [t for t in tests if sanitized(f"{t['implementation']}/{t['name']}") == stem]
    else:
        found = [t for t in tests if wanted in (f"{t['implementation']}/{t['name']}", t["name"])]
        if not found:
            found = [t for t in tests if wanted in f"{t['implementation']}/{t['name']}"]
    if len(found) > 1:
        failing = [t for t in found if protocol.is_failing(t["verdict"])]
        found = failing if len(failing) == 1 else found
    if not found:
        raise ReproProblem(f"no test of {directory.name} matches {wanted!r}" + (f" for --impl {impl}" if impl else ""))
    if len(found) > 1:
        names = "\n  ".join(f"{t['implementation']}/{t['name']}" for t in found[:10])
        raise ReproProblem(f"{len(found)} tests match {wanted!r}; name one (or give --impl):\n  {names}")
    return found[0]


def index_entry(directory: Path, test: dict) -> dict:
    index = json.loads((directory / "index.json").read_text())
    entries = index["tests"] if isinstance(index, dict) else index
    ctest_id = f"{test['implementation']}/{test['name']}"
    entry = next((e for e in entries if e["id"] == ctest_id), None)
    if entry is None:
        raise ReproProblem(f"{ctest_id} is not in the run's index.json")
    if entry.get("kind") == "compile-fail" or not entry.get("executable"):
        raise ReproProblem(f"{ctest_id} is a compile-time check ({entry.get('kind')}): its command is "
                           "in the run's ctest.log; a reproducer is made for run-time tests")
    return entry


# ------------------------------------------------------------------ reading the build

def compile_commands(build: Path) -> list[dict]:
    path = build / "compile_commands.json"
    if not path.is_file():
        raise ReproProblem(f"{path} is missing: the run's build tree is gone or was never configured")
    return json.loads(path.read_text())


def output_of(args: list[str]) -> str:
    return args[args.index("-o") + 1] if "-o" in args else ""


def link_statement(build: Path, executable: str) -> tuple[list[str], dict[str, str]]:
    """(explicit inputs, variables) of the ninja statement that links suite/<executable>."""
    text = (build / "build.ninja").read_text()
    lines = text.splitlines()
    target = f"build suite/{executable}:"
    for n, line in enumerate(lines):
        if line.startswith(target):
            rule_and_inputs = line[len(target):].split(" | ")[0].split(" || ")[0].split()
            variables = {}
            for more in lines[n + 1:]:
                if not more.startswith("  "):
                    break
                key, _, value = more.strip().partition(" = ")
                variables[key] = value
            return rule_and_inputs[1:], variables
    raise ReproProblem(f"{build}/build.ninja has no link step for suite/{executable}: the build tree was "
                       "reconfigured without this implementation since the run (run it again)")


def without_pch(args: list[str]) -> list[str]:
    """The compile arguments with CMake's precompiled header replaced by what it includes."""
    out, n = [], 0
    while n < len(args):
        a = args[n]
        if a == "-Xclang" and n + 3 < len(args) and args[n + 1] in ("-include-pch", "-include") \
                and args[n + 2] == "-Xclang":
            if args[n + 1] == "-include":
                hxx = Path(args[n + 3])
                for header in re.findall(r'#include "([^"]+)"', hxx.read_text() if hxx.is_file() else ""):
                    out += ["-include", header]
            n += 4
            continue
        if a == "-Xclang" and n + 1 < len(args) and args[n + 1] == "-fno-pch-timestamp":
            n += 2
            continue
        if a in PCH_DROPPED:
            n += 1
            continue
        out.append(a)
        n += 1
    return out


def strip_output(args: list[str]) -> list[str]:
    """The compile arguments without the compiler, -o OBJ, -c SRC, and dependency-file options."""
    out, n = [], 1
    while n < len(args):
        a = args[n]
        if a in ("-o", "-c", "-MF", "-MT", "-MQ"):
            n += 2
            continue
        if a in ("-MD", "-MMD"):
            n += 1
            continue
        out.append(a)
        n += 1
    return out


def compiled_objects(build: Path) -> dict[str, tuple[list[str], Path]]:
    """Object -> (its compile command's arguments, its source), from compile_commands.json."""
    by_output = {}
    for c in compile_commands(build):
        args = shlex.split(c["command"])
        by_output[output_of(args)] = (args, Path(c["file"]))
    return by_output


def executable_plan(build: Path, executable: str,
                    by_output: dict[str, tuple[list[str], Path]] | None = None) -> Plan:
    """Every unit that the link of suite/<executable> takes: its own sources (each test source
    and the per-implementation support sources) and its libraries' sources, with the link line.
    `by_output`: compiled_objects(build), when the caller plans several executables."""
    by_output = by_output if by_output is not None else compiled_objects(build)
    inputs, variables = link_statement(build, executable)
    result = Plan(compiler="")
    for obj in inputs:
        if obj in by_output:
            args, file = by_output[obj]
            result.units.append(Unit(file, args[0], without_pch(strip_output(args)),
                                     f"u{len(result.units):02d}-{Path(obj).stem}", object_path=obj))
    result.compiler = result.units[0].compiler if result.units else "c++"
    for token in shlex.split(variables.get("LINK_LIBRARIES", "")):
        m = re.match(r"^(.*/)?lib([^/]+)\.a$", token)
        archive = (build / token) if not token.startswith("/") else Path(token)
        if m and archive.resolve().is_relative_to(build.resolve()):
            target_dir = f"{(m[1] or '')}CMakeFiles/{m[2]}.dir/"
            library = f"lib{m[2]}.a"
            for obj, (args, file) in by_output.items():
                if obj.startswith(target_dir):
                    result.units.append(Unit(file, args[0], without_pch(strip_output(args)),
                                             f"l{len(result.units):02d}-{Path(obj).stem}", library, obj))
            result.link_libraries.append(library)
        else:
            result.link_libraries.append(token)
    result.link_flags = shlex.split(variables.get("FLAGS", "")) + shlex.split(variables.get("LINK_FLAGS", ""))
    result.link_flags += shlex.split(variables.get("LINK_PATH", ""))
    return result


def for_test(whole: Plan, executable: str, source_path: str, root: Path = ROOT) -> Plan:
    """The units of an executable's plan that one test needs: its own source, the harness
    and support units, the libraries; not the executable's other test sources."""
    own_dir = f"suite/CMakeFiles/{executable}.dir/"
    source = (root / source_path).resolve()
    support = root / "suite" / "support"

    def needed(unit: Unit) -> bool:
        file = unit.source.resolve()
        return not unit.object_path.startswith(own_dir) or file == source or file.is_relative_to(support)
    units = [u for u in whole.units if needed(u)]
    if not any(u.source.resolve() == source for u in units):
        raise ReproProblem(f"{source_path} is not compiled into suite/{executable}")
    return Plan(whole.compiler, units, whole.link_flags, whole.link_libraries)


def plan(build: Path, entry: dict) -> Plan:
    return for_test(executable_plan(build, entry["executable"]), entry["executable"], entry["source"])


# ------------------------------------------------------------------ writing the directory

class Files:
    """Copies what the reproducer needs under files/ and rewrites paths to it."""

    def __init__(self, out: Path, build: Path, extra_roots: list[Path]):
        self.out, self.build = out, build.resolve()
        # Longest prefix first: the build tree lies inside the repository.
        roots = [(self.build, "build"), (ROOT.resolve(), "saferecl")]
        outside = [r.resolve() for r in extra_roots if not r.resolve().is_relative_to(ROOT.resolve())]
        roots += [(r, f"ext{n}") for n, r in enumerate(outside)]
        self.roots = sorted(roots, key=lambda r: len(str(r[0])), reverse=True)

    def place(self, path: Path) -> str | None:
        """files/<where> for a path the reproducer carries, None for one it refers to."""
        p = Path(os.path.normpath(path if path.is_absolute() else self.build / path))
        for root, name in self.roots:
            if p == root or p.is_relative_to(root):
                return f"files/{name}/{p.relative_to(root)}" if p != root else f"files/{name}"
        if str(p).startswith(SYSTEM_PREFIXES) or str(p).startswith(str(Path.home() / ".cache")):
            return None
        return f"files/other{p}"

    def copy(self, path: Path, origin: Path | None = None) -> str | None:
        """Copies `path` (or `origin`, a copy of it kept elsewhere) to where place() says."""
        where = self.place(path)
        p = origin or (path if path.is_absolute() else self.build / path)
        if where is not None and p.is_file():
            target = self.out / where
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, target)
        return where

    def rewrite(self, token: str) -> str:
        """A compile or link argument with its paths moved under $HERE/files."""
        for prefix in ("-I", "-isystem", "-include", "-L", "-Wl,-rpath,", "--sysroot=", ""):
            if token.startswith(prefix) and token[len(prefix):].startswith("/"):
                where = self.place(Path(token[len(prefix):]))
                return token if where is None else f"{prefix}$(HERE)/{where}"
        return token


def dependencies(unit: Unit, build: Path) -> list[Path]:
    """The files the compiler reads for a unit (its -M output)."""
    done = subprocess.run([unit.compiler, *unit.args, "-M", "-MF", "-", str(unit.source)],
                          cwd=build, capture_output=True, text=True)
    if done.returncode != 0:
        raise ReproProblem(f"listing the headers of {unit.source} failed:\n{done.stderr[-2000:]}")
    words = done.stdout.replace("\\\n", " ").split(":", 1)[-1].split()
    return [Path(w) if Path(w).is_absolute() else build / w for w in words]


SANITIZER_REPORT = re.compile(r"(?:WARNING|ERROR): (\w+Sanitizer): ([A-Za-z][\w-]*(?: [a-z][\w-]*)*)")


def sanitizer_report_kind(text: str) -> str:
    """"ThreadSanitizer: data race", "AddressSanitizer: heap-use-after-free", or ""."""
    m = SANITIZER_REPORT.search(text or "")
    return f"{m[1]}: {m[2].split(' on ')[0]}" if m else ""


def test_filter(name: str) -> str:
    """doctest's --test-case filter of a case, as suite/cmake/discover_tests.cmake writes it."""
    return name.replace(",", "\\,")


def environment(run: dict, directory: Path, impl: str, seed: str = "") -> dict[str, str]:
    """What the run gave the test process: its knobs and the sanitizers' options; `seed` is the
    one the test printed (a --repeat round's), else the run's."""
    mutant = dict(run.get("test_environment") or {})
    if not mutant:  # a run from before run.json kept it: the implementation's row names it
        for i in json.loads((directory / "implementations.json").read_text()):
            m = re.search(r"active mutant (\S+)", i.get("version", ""))
            if i.get("name") == impl and m:
                mutant = {"SAFERECL_MUTANT": m[1]}
    seed = seed if str(seed).isdigit() else run.get("seed", 0)
    env = ctest.test_environment(float(run.get("stress_scale", 1)), int(seed), mutant)
    keep = {k: v for k, v in env.items()
            if k.startswith("SAFERECL_") or k in ("TSAN_OPTIONS", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")}
    if "SAFERECL_MUTANT" not in mutant:
        keep.pop("SAFERECL_MUTANT", None)
    return keep


def shell_verdict() -> str:
    """run.sh's account of the exit status, from reports/protocol.py's statuses (the reports'
    order: the watchdog, a signal, a sanitizer's deadly signal, then the status)."""
    return f"""if [ "$status" -eq {protocol.TIMEOUT} ] || grep -qF '{protocol.TIMEOUT_PREFIX}' "$OUT"; then verdict={protocol.VERDICT_TIMEOUT}
elif [ "$status" -ge 128 ]; then verdict={protocol.VERDICT_CRASH}
elif grep -Eq '{DEADLY.pattern}' "$OUT"; then verdict={protocol.VERDICT_CRASH}
elif [ "$status" -eq {protocol.NOT_APPLICABLE} ]; then verdict='{protocol.VERDICT_NOT_APPLICABLE}'
elif [ "$status" -eq {protocol.PASS} ]; then verdict={protocol.VERDICT_PASS}
else verdict={protocol.VERDICT_FAIL}
fi"""


def write(out: Path, directory: Path, test: dict, entry: dict, the_plan: Plan, run: dict,
          command_line: str, record=None) -> Path:
    """The reproducer's directory; its files come from the run's record (repro_record.Record)
    when there is one, otherwise from the build tree (the compiler lists them)."""
    build = Path(run["build_dir"])
    std = run.get("std_options") or {}
    extra_roots = [Path(d) for d in (std.get("SAFERECL_STD_INCLUDE_DIRS") or "").split(";") if d]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    files = Files(out, build, extra_roots)

    # Every file the compiler reads that is not the system's, and every library by path.
    for unit in the_plan.units:
        for dep in record.reads(unit) if record else dependencies(unit, build):
            files.copy(dep, record.stored_copy(dep) if record else None)
        files.copy(unit.source)
    libraries = []
    for token in the_plan.link_libraries:
        if token.startswith("/") and Path(token).is_file():
            files.copy(Path(token))
        libraries.append(files.rewrite(token))
    impl = test["implementation"]
    supp = ROOT / "adapters" / impl / "tsan.supp"
    env = environment(run, directory, impl, str(test.get("seed") or ""))
    if supp.is_file() and run.get("sanitizer") == "tsan":
        where = files.copy(supp)
        env["TSAN_OPTIONS"] = env.get("TSAN_OPTIONS", "") + f" suppressions=$HERE/{where}"

    # The Makefile: one object per unit, the archives, the test executable.
    archives: dict[str, list[str]] = {}
    rules = []
    for unit in the_plan.units:
        src = files.place(unit.source)
        flags = " ".join(shlex.quote(files.rewrite(a)) for a in unit.args)
        obj = f"obj/{unit.object_name}.o"
        rules.append(f"{obj}: $(HERE)/{src}\n\t@mkdir -p obj\n\t$(CXX) {flags} -c $< -o $@\n")
        if unit.library:
            archives.setdefault(unit.library, []).append(obj)
    objects = [f"obj/{u.object_name}.o" for u in the_plan.units if not u.library]
    for library, objs in archives.items():
        rules.append(f"obj/{library}: {' '.join(objs)}\n\trm -f $@ && ar rcs $@ $^\n")
    link_libraries = [f"obj/{t}" if t in archives else t for t in libraries]
    link_flags = " ".join(shlex.quote(files.rewrite(a)) for a in the_plan.link_flags)
    libs = " ".join(shlex.quote(t) for t in link_libraries)
    makefile = (f"# The reproducer's build (build.sh runs it). Generated by {command_line}\n"
                f"HERE := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))\n"
                f"CXX ?= {the_plan.compiler}\n\n"
                f"test: {' '.join(objects)} {' '.join(f'obj/{a}' for a in archives)}\n"
                f"\t$(CXX) {link_flags} {' '.join(objects)} -o $@ {libs}\n\n" + "\n".join(rules))
    (out / "Makefile").write_text(makefile)
    script(out / "build.sh", f"""#!/bin/sh
# Builds ./test: the test case's source, the harness and the implementation, with the run's
# compiler and flags. CXX overrides the compiler ({the_plan.compiler}); JOBS the parallelism.
set -eu
cd "$(dirname "$0")"
exec make CXX="${{CXX:-{the_plan.compiler}}}" -j"${{JOBS:-2}}" test
""")
    exports = "\n".join(f"export {k}=\"${{{k}-{v}}}\"" for k, v in sorted(env.items()))
    script(out / "run.sh", f"""#!/bin/sh
# Runs the one test case, with the run's seed and environment (each variable may be
# overridden from outside, e.g. SAFERECL_MUTANT= ./run.sh); prints its output, the exit
# status, the verdict and the sanitizer report's kind. Exit status: the test's.
HERE=$(cd "$(dirname "$0")" && pwd)
{exports}
OUT="$HERE/output.txt"
# CTest's last-resort TIMEOUT of this test: timeout(1) ends it with status {protocol.TIMEOUT}.
timeout {int(entry.get("timeout") or 300)} "$HERE/test" {shlex.quote('--test-case=' + test_filter(test['name']))} >"$OUT" 2>&1
status=$?
cat "$OUT"
{shell_verdict()}
report=$(grep -Eo '(WARNING|ERROR): [A-Za-z]+Sanitizer: [A-Za-z][A-Za-z0-9_-]*( [a-z][A-Za-z0-9_-]*)*' "$OUT" | head -n 1 | sed -E 's/^(WARNING|ERROR): //; s/ on .*//')
echo "[saferecl] exit status $status"
echo "[saferecl] verdict: $verdict${{report:+ (sanitizer report: $report)}}"
exit $status
""")
    kind = sanitizer_report_kind(test.get("output_excerpt", "") + "\n" + test.get("headline", ""))
    facts = {"schema": "saferecl-repro/1", "test": f"{impl}/{test['name']}", "implementation": impl,
             "cxx": the_plan.compiler,
             "expected_verdict": test["verdict"], "sanitizer_report": kind, "detail": test.get("detail", ""),
             "headline": test.get("headline", ""), "paragraph": entry.get("requirement", ""),
             "tier": entry.get("tier"), "kind": entry.get("kind"), "source": entry["source"],
             "sanitizer": run.get("sanitizer"), "seed": run.get("seed"), "compiler": run.get("compiler_version"),
             "standard": run.get("cxx_standard"), "stdlib": run.get("stdlib"),
             "cxx_runtime": (run.get("cxx_runtime") or {}).get("how") or (run.get("cxx_runtime") or {}).get("library"),
             "environment": env, "from_run": str(directory), "made_by": command_line}
    (out / "repro.json").write_text(json.dumps(facts, indent=1) + "\n")
    (out / "README.md").write_text(readme(facts, test, entry, the_plan, files))
    return out


def script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def readme(facts: dict, test: dict, entry: dict, the_plan: Plan, files: Files) -> str:
    paragraph = facts["paragraph"] or "(no paragraph)"
    stable = entry.get("stable_name", "")
    expected = facts["expected_verdict"] + (f", with a {facts['sanitizer_report']} report" if facts["sanitizer_report"] else "")
    env = "\n".join(f"    {k}={v}" for k, v in sorted(facts["environment"].items()))
    return f"""# Reproducer: {facts['test']}

The test checks **[{stable}]{('/' + entry['paragraph']) if entry.get('paragraph') else ''}** of the C++ working draft
(`{paragraph}`, tier `{facts['tier']}`, kind `{facts['kind']}`): "{test['name']}".

**Expected verdict: {expected}.**
In the run it came from: {test['verdict']} — {facts['detail']}
{('    ' + facts['headline']) if facts['headline'] else ''}

## Build and run

    ./build.sh      # make -j2; CXX=... to change the compiler
    ./run.sh        # the one test case; prints the verdict

`run.sh` ends with `[saferecl] verdict: ...` and the sanitizer report's kind, and exits with
the test's status (0 pass, 1 failed check, {protocol.SANITIZER} sanitizer report, {protocol.TIMEOUT} watchdog
timeout, {protocol.NOT_APPLICABLE} not applicable, 128+N signal N). It says what the process did; whether a
ThreadSanitizer report was evidence (the reports call a race through an uninstrumented C++
runtime, or in a process whose fences TSan could not follow, INCONCLUSIVE) is the reports'
judgement, given above as the run's detail.

{mutant_note(facts)}## How it was made

- implementation: `{facts['implementation']}`; test source `{facts['source']}` (copied under `files/`)
- tier: `{facts['sanitizer']}`; compiler: {facts['compiler']}; standard: {facts['standard']}; standard library: {facts['stdlib'] or 'the compiler default'}
- C++ runtime under TSan: {facts['cxx_runtime'] or 'n/a'}
- seed and environment (run.sh exports them; each can be overridden):
{env}
- compile flags: per unit in `Makefile`, exactly the run's (its precompiled header replaced by the
  header it precompiled); link flags and libraries: the run's link line
- files: `files/saferecl/` (this suite: the test, the harness, the adapter, the reference's
  sources), `files/build/` (generated in the build tree), `files/ext*/` and `files/other/` (other
  directories the run used, e.g. a vendor's include tree and library); system headers and
  libraries (`/usr/...`, Debian's doctest-dev) are used where they are
- needs: the compiler above, `make`, `ar` (binutils), `doctest-dev` (Debian)

Made by `{facts['made_by']}` from the run `{facts['from_run']}`.
"""


def mutant_note(facts: dict) -> str:
    mutant = facts["environment"].get("SAFERECL_MUTANT")
    if not mutant:
        return ""
    return (f"The implementation is saferecl's reference with mutant {mutant} switched on at run time "
            f"(`SAFERECL_MUTANT={mutant}`, adapters/mutants/catalog.json). Against the reference itself,\n"
            f"the same build: `SAFERECL_MUTANT= ./run.sh` (expected: PASS).\n\n")


def tree_matches_run(build: Path, run: dict) -> None:
    """The build tree still has the run's configuration (for a run that kept no record): a
    later run in the same tree with other --std-* options or another compiler would otherwise
    give its flags to this run's reproducer. Compilers are compared by the program they run."""
    from driver.repro_record import resolved_program
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        raise ReproProblem(f"{build} has no CMakeCache.txt: the run's build tree is gone; run the test again")
    values = {}
    for line in cache.read_text(errors="replace").splitlines():
        m = re.match(r"^([A-Za-z0-9_]+):[A-Z]+=(.*)$", line)
        if m:
            values[m[1]] = m[2]
    wanted = dict(run.get("std_options") or {})
    if run.get("compiler"):
        wanted["CMAKE_CXX_COMPILER"] = run["compiler"]
    def same(key: str, value: str) -> bool:
        if key == "CMAKE_CXX_COMPILER":
            return resolved_program(values[key]) == resolved_program(value)
        return values[key] == value
    for key, value in wanted.items():
        if key in values and not same(key, str(value)):
            raise ReproProblem(f"the build tree {build} was configured again since the run ({key} is now "
                               f"{values[key]!r}, the run had {value!r}), and the run kept no record of its "
                               "build (runs before reproduce/record.json): run the test again, then make the reproducer")


def from_record(record, entry: dict) -> Plan:
    """The test's plan from the run's record, refused when what it reads has changed."""
    the_plan = record.plan(entry)
    libraries = [Path(t) for t in the_plan.link_libraries if t.startswith("/")]
    changed = record.changed_since([p for u in the_plan.units for p in [u.source, *record.reads(u)]] + libraries)
    if changed:
        shown = "\n  ".join(changed[:10]) + (f"\n  ... and {len(changed) - 10} more" if len(changed) > 10 else "")
        raise ReproProblem(f"{len(changed)} of the files this test compiled changed since the run, so a reproducer "
                           f"would not build what the run tested:\n  {shown}\n"
                           "Check out the run's sources (run.json: source_revision) or run the test again.")
    moved = record.compiler_changes()
    if moved:
        raise ReproProblem("the run's compiler is another program now: " + "; ".join(moved))
    return the_plan


def make(wanted: str, run: Path | None, impl: str | None, out: Path | None, command_line: str) -> tuple[Path, dict]:
    from driver.repro_record import Record
    directory = report_dir(run)
    run_json = json.loads((directory / "run.json").read_text())
    test = find_test(directory, wanted, impl)
    entry = index_entry(directory, test)
    record = Record.of(directory)
    if record is not None:
        the_plan = from_record(record, entry)
    else:
        build = Path(run_json.get("build_dir", ""))
        if not build.is_dir():
            raise ReproProblem(f"the run's build tree {build} is gone and the run kept no record of its build: "
                               "run the test again, then make the reproducer")
        tree_matches_run(build, run_json)
        the_plan = plan(build, entry)
    target = out or directory / "repro" / sanitized(f"{test['implementation']}/{test['name']}")[:80]
    return write(target, directory, test, entry, the_plan, run_json, command_line, record), test
