"""What a run keeps so that ./conformance repro can rebuild any of its tests later, whatever
has happened to the build tree since: a later run with another --std-include, another
compiler or another tier reconfigures the tree, and its compile commands and link lines are
then no longer the run's.

At the end of its build a run writes, into its report directory:

  reproduce/record.json
    compilers   each compiler command of the run, and the program it resolves to
    flags       the distinct compile argument lists (one per target, so they are few)
    executables each test executable of the run: its units (source, flags, object,
                library, the files it reads) and its link line
    files       every file outside the system that a unit reads (ninja's dependency log:
                sources, headers, a vendor's include tree), with its SHA-256
  reproduce/generated/
    the files of those that the build tree generated (a copy: the tree may change)

./conformance repro reads it (driver/repro.py): the test's units come from the record, and a
reproducer is made only while every file the test reads is still what the run compiled;
otherwise it names the files that changed. A run kept no record before this existed: repro
then falls back on the build tree, if it still has the run's configuration.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from driver import repro

RECORD_DIR = "reproduce"
RECORD = "record.json"
SCHEMA = "saferecl-build-record/1"
SYSTEM_PREFIXES = repro.SYSTEM_PREFIXES + ("/usr/",)
# Build outputs a unit may read that the reproducer rebuilds or does not need (the PCH it
# replaces with the header it precompiles).
NOT_KEPT_SUFFIXES = (".pch", ".gch", ".o", ".a", ".so")


def resolved_program(command: str) -> str:
    """The program a compiler command runs: `clang++` and `/usr/bin/clang++` are one
    compiler (both resolve to /usr/lib/llvm-14/bin/clang)."""
    found = shutil.which(command) or command
    return os.path.realpath(found)


def dependency_log(build: Path) -> dict[str, list[str]]:
    """Object (relative to the build tree) -> the files its compilation read, from ninja."""
    shown = subprocess.run(["ninja", "-C", str(build), "-t", "deps"], capture_output=True, text=True)
    deps: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in shown.stdout.splitlines():
        if line.startswith("    ") and current is not None:
            current.append(line.strip())
        elif line and not line.startswith(" ") and ": #deps" in line:
            current = deps.setdefault(line.split(": #deps", 1)[0], [])
        else:
            current = None
    return deps


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def absolute(build: Path, path: str) -> Path:
    return Path(os.path.normpath(path if path.startswith("/") else build / path))


def write(report_dir: Path, build: Path, executables: list[str]) -> None:
    """Records the build of `executables` (those of the run's tests) in `report_dir`."""
    out = report_dir / RECORD_DIR
    deps = dependency_log(build)
    flags: list[list[str]] = []
    files: dict[str, str] = {}  # absolute path -> sha256
    generated = out / "generated"
    recorded = {}
    by_output = repro.compiled_objects(build)
    for executable in sorted(set(executables)):
        try:
            whole = repro.executable_plan(build, executable, by_output)
        except repro.ReproProblem:
            continue  # not built (a NOT BUILT source): nothing of it to reproduce
        units = []
        for unit in whole.units:
            if unit.args not in flags:
                flags.append(unit.args)
            read = [absolute(build, d) for d in deps.get(unit.object_path, [])] or [unit.source]
            kept = []
            for path in read:
                if str(path).startswith(SYSTEM_PREFIXES) or path.suffix in NOT_KEPT_SUFFIXES \
                        or not path.is_file():
                    continue
                if str(path) not in files:
                    files[str(path)] = sha256(path)
                    if path.is_relative_to(build.resolve()):
                        copy = generated / path.relative_to(build.resolve())
                        copy.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy2(path, copy)
                kept.append(str(path))
            units.append({"source": str(unit.source), "compiler": unit.compiler, "flags": flags.index(unit.args),
                          "object_name": unit.object_name, "library": unit.library,
                          "object_path": unit.object_path, "reads": kept})
        for token in whole.link_libraries:  # a vendor's library given by path
            if token.startswith("/") and not token.startswith(SYSTEM_PREFIXES) and Path(token).is_file():
                files.setdefault(token, sha256(Path(token)))
        recorded[executable] = {"compiler": whole.compiler, "units": units, "link_flags": whole.link_flags,
                                "link_libraries": whole.link_libraries}
    compilers = sorted({u["compiler"] for e in recorded.values() for u in e["units"]})
    out.mkdir(parents=True, exist_ok=True)
    (out / RECORD).write_text(json.dumps({
        "schema": SCHEMA, "build_dir": str(build.resolve()), "source_dir": str(repro.ROOT),
        "compilers": {c: resolved_program(c) for c in compilers},
        "flags": flags, "executables": recorded, "files": files}, indent=0))


class Record:
    """A run's record, read back."""

    def __init__(self, report_dir: Path):
        self.dir = report_dir / RECORD_DIR
        self.data = json.loads((self.dir / RECORD).read_text())
        self.build = Path(self.data["build_dir"])

    @staticmethod
    def of(report_dir: Path) -> Record | None:
        return Record(report_dir) if (report_dir / RECORD_DIR / RECORD).is_file() else None

    def plan(self, entry: dict) -> repro.Plan:
        executable = entry["executable"]
        recorded = self.data["executables"].get(executable)
        if recorded is None:
            raise repro.ReproProblem(f"the run's record has no build of suite/{executable} (it was not built)")
        units = [repro.Unit(Path(u["source"]), u["compiler"], self.data["flags"][u["flags"]], u["object_name"],
                            u["library"], u["object_path"]) for u in recorded["units"]]
        whole = repro.Plan(recorded["compiler"], units, recorded["link_flags"], recorded["link_libraries"])
        return repro.for_test(whole, executable, entry["source"], Path(self.data["source_dir"]))

    def reads(self, unit: repro.Unit) -> list[Path]:
        for e in self.data["executables"].values():
            for u in e["units"]:
                if u["object_path"] == unit.object_path:
                    return [Path(p) for p in u["reads"]]
        return [unit.source]

    def stored_copy(self, path: Path) -> Path | None:
        """Where the record keeps a file the build tree generated (None: not generated)."""
        if path.is_relative_to(self.build):
            return self.dir / "generated" / path.relative_to(self.build)
        return None

    def changed_since(self, paths: list[Path]) -> list[str]:
        """The files among `paths` that are no longer what the run compiled."""
        changed = []
        for path in dict.fromkeys(paths):
            digest = self.data["files"].get(str(path))
            if digest is None or self.stored_copy(path) is not None:
                continue
            if not path.is_file():
                changed.append(f"{path} (gone)")
            elif sha256(path) != digest:
                changed.append(str(path))
        return changed

    def compiler_changes(self) -> list[str]:
        """Compilers that now resolve to another program than they did in the run."""
        return [f"{command} was {program}, now {resolved_program(command)}"
                for command, program in self.data["compilers"].items() if resolved_program(command) != program]
