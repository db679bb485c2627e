"""Compiler, its version and the battery's compile flags of a build tree, for run.json."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

FLAG_PREFIXES = ("-std", "-stdlib", "-f", "-O", "-g", "-W", "-m")
DEPENDENCY_FLAGS = ("-MD", "-MF", "-MT")


def toolchain(build_dir: Path) -> dict:
    info: dict = {}
    cache = build_dir / "CMakeCache.txt"
    if cache.is_file():
        for line in cache.read_text(errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.startswith("CMAKE_CXX_COMPILER:"):
                info["compiler"] = value
            elif key.startswith("CMAKE_BUILD_TYPE:"):
                info["build_type"] = value
    commands = build_dir / "compile_commands.json"
    if commands.is_file():
        entries = json.loads(commands.read_text())
        battery = [e for e in entries if "/suite/saferecl." in e.get("file", "")] or entries
        if battery:
            words = battery[0].get("arguments") or shlex.split(battery[0].get("command", ""))
            info["compiler"] = words[0]  # the resolved path, not the preset's "clang++"
            keep = [w for w in words[1:] if w.startswith(FLAG_PREFIXES)
                    and not w.startswith(DEPENDENCY_FLAGS)]
            info["cxx_flags"] = " ".join(dict.fromkeys(keep))
    if info.get("compiler"):
        probe = subprocess.run([info["compiler"], "--version"], capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout:
            info["compiler_version"] = probe.stdout.splitlines()[0].strip()
    return info
