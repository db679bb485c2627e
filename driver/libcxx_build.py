"""An instrumented libc++, built here from the distribution's own source of the compiler's LLVM.

TSan sees a happens-before edge only in instrumented code, and Debian's libc++.a is not
instrumented (driver/runtime_probe.py). libc++'s own TSan CI builds the runtime with the
sanitizer; this module does the same for the exact toolchain that ships the chosen clang:

1. the toolchain: the Debian package that owns the compiler (dpkg -S), its source package
   and version (llvm-toolchain-22 1:22.1.8-1~deb12u1);
2. the source: a deb-src entry for the archive and suite `apt-cache policy` names for the
   installed version, added for the download and removed after (only that entry is
   updated). apt fetches the files; an orig tarball that the suite's pool lacks (a security
   suite's mirror serves only the files it changed) is looked up under the same name in the
   pools of the other configured archives, and accepted only with the SHA256 the suite's own
   Sources index gives. `--source FILE` takes a tarball the user fetched (no root needed);
3. only the runtimes part of the tarball is unpacked (runtimes/, libcxx/, libcxxabi/,
   cmake/, llvm/cmake/ and llvm/utils/, libc/'s shared headers, third-party/);
4. the LLVM runtimes build of libc++ and libc++abi with -DLLVM_USE_SANITIZER=Thread, with
   the same clang, installed into the cache: <cache>/libc++-<version>-<sanitizer>/
   (include/c++/v1, lib/), stamped last with runtime.json. The cache is
   $SAFERECL_CACHE, else $XDG_CACHE_HOME/saferecl, else ~/.cache/saferecl.

A second call finds the stamp and returns at once; an interrupted one resumes (the
download, the unpacked tree and the build directory are kept until the stamp is written).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from driver.environment import ensure_packages
from driver.errors import EnvironmentProblem

SANITIZERS = {"tsan": "Thread"}  # the only tier whose verdicts depend on the runtime's instrumentation
STAMP = "runtime.json"
# What the runtimes build of libc++ and libc++abi reads of the monorepo.
SOURCE_PARTS = ("runtimes", "libcxx", "libcxxabi", "cmake", "llvm/cmake", "llvm/utils",
                "libc/include", "libc/shared", "libc/src/__support", "libc/hdr", "libc/config",
                "third-party")
SOURCES_ENTRY = Path("/etc/apt/sources.list.d/saferecl-llvm-source.sources")
BUILD_PACKAGES = ["cmake", "ninja-build", "xz-utils", "dpkg-dev"]

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Toolchain:
    compiler: str  # the compiler's path (clang++-22: the build's C++ compiler)
    binary_package: str  # clang-22
    source_package: str  # llvm-toolchain-22
    version: str  # 1:22.1.8-1~deb12u1 (Debian's)

    @property
    def upstream(self) -> str:
        """22.1.8: the version without epoch and Debian revision."""
        return self.version.split(":", 1)[-1].rsplit("-", 1)[0]

    def key(self, sanitizer: str) -> str:
        return "libc++-" + re.sub(r"[^A-Za-z0-9.+-]", "_", self.version.split(":", 1)[-1]) + f"-{sanitizer}"


def cache_root() -> Path:
    if os.environ.get("SAFERECL_CACHE"):
        return Path(os.environ["SAFERECL_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "saferecl"


def _output(args: list[str]) -> str:
    done = subprocess.run(args, capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else ""


def toolchain_of(compiler_path: str) -> Toolchain:
    """The Debian toolchain that ships the compiler; EnvironmentProblem for any other."""
    real = os.path.realpath(compiler_path)
    owner = _output(["dpkg", "-S", real]).split(":", 1)[0].strip()
    if not owner:
        raise EnvironmentProblem(
            f"{compiler_path} ({real}) belongs to no Debian package: build libc++ with TSan yourself "
            "(LLVM runtimes build, -DLLVM_USE_SANITIZER=Thread) and give it with --stdlib-include and "
            "--stdlib-libdir, or use --tsan-runtime annotated")
    fields = _output(["dpkg-query", "-W", "-f=${source:Package}\t${source:Version}", owner]).split("\t")
    if len(fields) != 2 or not fields[0]:
        raise EnvironmentProblem(f"dpkg knows no source package of {owner}")
    return Toolchain(compiler_path, owner, fields[0], fields[1])


def cached(toolchain: Toolchain, sanitizer: str) -> Path | None:
    """The installed runtime's directory when its stamp says it is complete."""
    home = cache_root() / toolchain.key(sanitizer)
    return home if (home / STAMP).is_file() else None


def stamp(home: Path) -> dict:
    return json.loads((home / STAMP).read_text())


def include_dirs(home: Path) -> list[str]:
    return [str(home / "include" / "c++" / "v1")]


def library_dirs(home: Path) -> list[str]:
    return [str(home / "lib")]


# ------------------------------------------------------------------------------ the source

@dataclass(frozen=True)
class SourceFile:
    name: str
    size: int
    sha256: str


def archive_origin(toolchain: Toolchain) -> tuple[str, str, str]:
    """(URI, suite, component) that apt installed the compiler's version from."""
    policy = _output(["apt-cache", "policy", toolchain.binary_package]).splitlines()
    in_version = False
    for line in policy:
        if re.match(r"^\s+(\*\*\*\s+)?\S+\s+-?\d+$", line):
            in_version = line.split()[-2] == toolchain_installed_version(toolchain)
            continue
        m = re.match(r"^\s+-?\d+\s+(\S+)\s+(\S+?)/(\S+)\s+\S+\s+Packages$", line)
        if in_version and m:
            return m[1], m[2], m[3]
    raise EnvironmentProblem(f"apt-cache policy {toolchain.binary_package} names no archive for "
                             f"version {toolchain_installed_version(toolchain)}")


def toolchain_installed_version(toolchain: Toolchain) -> str:
    return _output(["dpkg-query", "-W", "-f=${Version}", toolchain.binary_package]).strip()


def configured_archives() -> list[str]:
    """The URIs of every `deb` entry apt has (deb822 .sources and one-line .list files)."""
    found: list[str] = []
    parts = Path("/etc/apt/sources.list.d")
    files = [Path("/etc/apt/sources.list"), *sorted(parts.glob("*.list")), *sorted(parts.glob("*.sources"))]
    for f in files:
        if not f.is_file() or f == SOURCES_ENTRY:
            continue
        text = f.read_text(errors="replace")
        found += re.findall(r"(?m)^URIs:\s*(\S+)", text)
        found += re.findall(r"(?m)^deb\s+(?:\[[^\]]*\]\s+)?(\S+)", text)
    return list(dict.fromkeys(u.rstrip("/") for u in found))


def signed_by(uri: str) -> str:
    """The Signed-By of the configured deb822 entry for `uri`, if any."""
    for f in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for stanza in f.read_text(errors="replace").split("\n\n"):
            if re.search(rf"(?m)^URIs:\s*{re.escape(uri)}/?\s*$", stanza):
                m = re.search(r"(?m)^Signed-By:\s*(\S+)", stanza)
                if m:
                    return m[1]
    return ""


class SourceEntry:
    """A deb-src entry for one archive and suite while the block runs (root only)."""

    def __init__(self, uri: str, suite: str, component: str):
        self.uri, self.suite, self.component = uri, suite, component

    def apt_options(self) -> list[str]:
        return ["-o", f"Dir::Etc::SourceList={SOURCES_ENTRY}", "-o", "Dir::Etc::SourceParts=-",
                "-o", "APT::Get::List-Cleanup=0"]

    def __enter__(self) -> "SourceEntry":
        if os.geteuid() != 0:
            raise EnvironmentProblem(
                "fetching the LLVM source needs root (a deb-src entry and apt-get update); run as root, "
                "or download the source package's orig tarball yourself and give it with --source FILE")
        key = signed_by(self.uri)
        SOURCES_ENTRY.write_text(f"Types: deb-src\nURIs: {self.uri}\nSuites: {self.suite}\n"
                                 f"Components: {self.component}\n" + (f"Signed-By: {key}\n" if key else ""))
        updated = subprocess.run(["apt-get", "update", *self.apt_options()], capture_output=True, text=True)
        if updated.returncode != 0:
            self.__exit__()
            raise EnvironmentProblem(f"apt-get update of deb-src {self.uri} {self.suite} failed: "
                                     + (updated.stderr.strip().splitlines() or ["?"])[-1])
        return self

    def __exit__(self, *exc) -> None:
        SOURCES_ENTRY.unlink(missing_ok=True)

    def files(self, toolchain: Toolchain) -> list[tuple[str, SourceFile]]:
        """(URI, file) of each file of the source package, with the SHA256 of the suite's
        Sources index (apt-get source --print-uris)."""
        printed = _output(["apt-get", *self.apt_options(), "source", "--print-uris", "--download-only",
                           f"{toolchain.source_package}={toolchain.version}"])
        found = re.findall(r"(?m)^'(\S+)' (\S+) (\d+) SHA256:([0-9a-f]{64})$", printed)
        if not found:
            raise EnvironmentProblem(f"the Sources index of {self.uri} {self.suite} has no "
                                     f"{toolchain.source_package} {toolchain.version}")
        return [(uri, SourceFile(name, int(size), digest)) for uri, name, size, digest in found]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(urls: list[str], target: Path, expected: SourceFile, say: Progress) -> None:
    """The first of `urls` that serves the file with the expected SHA256."""
    failures = []
    for url in urls:
        partial = target.with_name(target.name + ".part")
        try:
            with urllib.request.urlopen(url, timeout=60) as response, partial.open("wb") as out:
                done, shown = 0, 0
                while chunk := response.read(1 << 20):
                    out.write(chunk)
                    done += len(chunk)
                    if done - shown >= expected.size // 4:
                        say(f"   {target.name}: {done >> 20} of {expected.size >> 20} MB")
                        shown = done
        except OSError as e:
            failures.append(f"{url}: {e}")
            continue
        if sha256_of(partial) != expected.sha256:
            failures.append(f"{url}: SHA256 differs from the Sources index")
            partial.unlink()
            continue
        partial.rename(target)
        say(f"   {target.name}: from {url}")
        return
    raise EnvironmentProblem(f"no archive serves {expected.name} with the SHA256 of its Sources index: "
                             + "; ".join(failures))


def fetch_tarball(toolchain: Toolchain, work: Path, say: Progress) -> Path:
    """The orig tarball of the toolchain's source package, verified, in `work`."""
    uri, suite, component = archive_origin(toolchain)
    say(f"   source: {toolchain.source_package} {toolchain.version} (deb-src {uri} {suite} {component})")
    with SourceEntry(uri, suite, component) as entry:
        uri_of_orig, orig = next(((u, f) for u, f in entry.files(toolchain) if ".orig.tar." in f.name),
                                 (None, None))
    if orig is None:
        raise EnvironmentProblem(f"{toolchain.source_package} {toolchain.version} has no orig tarball")
    target = work / orig.name
    if target.is_file() and sha256_of(target) == orig.sha256:
        return target
    prefix = toolchain.source_package[:4] if toolchain.source_package.startswith("lib") \
        else toolchain.source_package[0]
    pool_path = f"pool/{component}/{prefix}/{toolchain.source_package}/{orig.name}"
    # apt's own URI first; then the same pool path in every configured archive.
    urls = [uri_of_orig] + [f"{archive}/{pool_path}" for archive in configured_archives()]
    download(list(dict.fromkeys(urls)), target, orig, say)
    return target


def unpack(tarball: Path, tree: Path, say: Progress) -> Path:
    """The runtimes part of the tarball under `tree` (tar reads the stream once: about 30 s for
    LLVM 22's 197 MB); returns the source root."""
    top = tarball.name.split(".orig.tar.")[0]
    root = tree / top
    if (root / ".unpacked").is_file():
        return root
    say(f"   unpacking the runtimes part of {tarball.name}")
    tree.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["tar", "-xf", str(tarball), "-C", str(tree),
                           *(f"{top}/{part}" for part in SOURCE_PARTS)], capture_output=True, text=True)
    # A part this LLVM version does not have is no error; anything else tar says is.
    problems = [line for line in done.stderr.splitlines()
                if "Not found in archive" not in line and "Exiting with failure" not in line]
    if problems or not (root / "runtimes" / "CMakeLists.txt").is_file():
        raise EnvironmentProblem(f"unpacking {tarball.name} failed: "
                                 + (problems[0] if problems else f"no {top}/runtimes: not an LLVM source tarball"))
    (root / ".unpacked").touch()
    return root


# ------------------------------------------------------------------------------- the build

def configure(source: Path, build: Path, prefix: Path, toolchain: Toolchain, sanitizer: str) -> None:
    c_compiler = re.sub(r"clang\+\+(-\d+)?$", r"clang\1", toolchain.compiler)
    args = ["cmake", "-G", "Ninja", "-S", str(source / "runtimes"), "-B", str(build),
            "-DLLVM_ENABLE_RUNTIMES=libcxx;libcxxabi", f"-DLLVM_USE_SANITIZER={SANITIZERS[sanitizer]}",
            f"-DCMAKE_C_COMPILER={c_compiler}", f"-DCMAKE_CXX_COMPILER={toolchain.compiler}",
            "-DCMAKE_BUILD_TYPE=Release", "-DLIBCXX_INCLUDE_TESTS=OFF", "-DLIBCXXABI_INCLUDE_TESTS=OFF",
            "-DLIBCXX_INCLUDE_BENCHMARKS=OFF", "-DLIBCXXABI_USE_LLVM_UNWINDER=OFF",
            # The runs link the shared libraries (with an rpath): no static archives to build.
            "-DLIBCXX_ENABLE_STATIC=OFF", "-DLIBCXXABI_ENABLE_STATIC=OFF",
            f"-DCMAKE_INSTALL_PREFIX={prefix}"]
    done = subprocess.run(args, capture_output=True, text=True)
    (build / "configure.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise EnvironmentProblem(f"configuring the libc++ runtimes build failed: see {build / 'configure.log'}")


def build_and_install(build: Path, jobs: int, say: Progress) -> None:
    """ninja with a progress line at every tenth of the steps; the log is build.log."""
    log = (build / "build.log").open("w")
    process = subprocess.Popen(["ninja", "-C", str(build), "-j", str(jobs), "install-cxx", "install-cxxabi"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    shown = -1
    for line in process.stdout:
        log.write(line)
        m = re.match(r"^\[(\d+)/(\d+)\]", line)
        if m and int(m[2]) > 0 and (tenth := int(m[1]) * 10 // int(m[2])) > shown:
            shown = tenth
            say(f"   building libc++ and libc++abi: {m[1]}/{m[2]} steps")
    log.close()
    if process.wait() != 0:
        raise EnvironmentProblem(f"building libc++ failed: see {build / 'build.log'}")


def size_of(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def build_runtime(toolchain: Toolchain, sanitizer: str, jobs: int, say: Progress,
                  tarball: Path | None = None) -> Path:
    """The instrumented runtime's directory, built (and cached) when missing."""
    if sanitizer not in SANITIZERS:
        raise EnvironmentProblem(f"--sanitizer {sanitizer}: only the tsan tier depends on an instrumented "
                                 "runtime (ASan and the optimized tier see everything they check)")
    home = cache_root() / toolchain.key(sanitizer)
    if (home / STAMP).is_file():
        say(f"   cached: {home}")
        return home
    started = time.monotonic()
    stages: dict[str, float] = {}  # wall seconds of each step, in order

    def timed(name: str, step):
        t0 = time.monotonic()
        try:
            return step()
        finally:
            stages[name] = round(stages.get(name, 0) + time.monotonic() - t0, 1)

    timed("packages", lambda: ensure_packages(BUILD_PACKAGES))
    work = cache_root() / "work" / toolchain.key(sanitizer)
    work.mkdir(parents=True, exist_ok=True)
    if tarball is None:
        tarball = timed("download", lambda: fetch_tarball(toolchain, work, say))
    source = timed("unpack", lambda: unpack(tarball, work / "source", say))
    build = work / "build"
    build.mkdir(exist_ok=True)
    if not (build / "build.ninja").is_file():
        say("   configuring the LLVM runtimes build (libcxx;libcxxabi, "
            f"-DLLVM_USE_SANITIZER={SANITIZERS[sanitizer]})")
        timed("configure", lambda: configure(source, build, home, toolchain, sanitizer))
    timed("build and install", lambda: build_and_install(build, jobs, say))
    facts = {"library": f"libc++ {toolchain.upstream}", "sanitizer": sanitizer,
             "source_package": toolchain.source_package, "version": toolchain.version,
             "compiler": toolchain.compiler, "tarball": tarball.name,
             "installed_bytes": size_of(home),
             "built": time.strftime("%Y-%m-%dT%H:%M:%S")}
    (home / STAMP).write_text(json.dumps(facts, indent=1) + "\n")

    def clean_up() -> None:
        shutil.rmtree(work, ignore_errors=True)  # the stamp is written: nothing left to resume
        if not any(work.parent.iterdir()):
            work.parent.rmdir()

    timed("clean-up", clean_up)
    # Wall time from the first step to the last (packages and clean-up included: the
    # clock a user's watch shows), and where it went.
    facts |= {"build_seconds": round(time.monotonic() - started, 1), "stages": stages}
    (home / STAMP).write_text(json.dumps(facts, indent=1) + "\n")
    return home
