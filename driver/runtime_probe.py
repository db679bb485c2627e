"""Does ThreadSanitizer see the synchronization inside the C++ runtime of a build?

TSan sees a happens-before edge only where it is compiled in or intercepted. libstdc++ builds
std::call_once, std::mutex and thread start/join on pthread calls, which TSan intercepts.
A libc++ archive that was not built with -fsanitize=thread (Debian's libc++.a) completes
std::call_once with a release store inside the archive, and std::barrier counts its
arrivals there: TSan misses both edges, and reports races that a correct program does not
have. Any verdict whose happens-before edge lies inside the library may then be a false
FAIL ("data race"); edges made by the implementation under test with its own atomics are
unaffected. An instrumented libc++ (an LLVM runtimes build with -DLLVM_USE_SANITIZER=Thread)
makes TSan truthful again; the ASan and optimized tiers do not depend on it.

Two remedies make TSan truthful again (driver/cxx_runtime.py chooses): an instrumented
libc++ (./conformance runtime libc++ builds one from the distribution's source), or the
link-time annotations of suite/support/tsan/libcxx_runtime.cpp.

The probes, each a program that is correct C++ and synchronizes only through the runtime:
- call_once: thread A runs a std::call_once whose callable writes a plain int; thread B
  comes later (a sleep only orders them: B must take call_once's inline fast path, which
  synchronizes with A's completion inside the runtime and with nothing else) and reads it.
- barrier: three threads each write their own slot, meet at a std::barrier, and read every
  slot (the arrivals are counted inside libc++'s archive).
With the edges visible there is no race; without them TSan reports one nearly every time
(measured: call_once 6 of 6 runs, barrier 5 of 5 with Debian's static libc++ 22; 0 of 6
with libstdc++ 12 under clang 14, 22 and g++ 12; 0 with the annotations or an instrumented
libc++ 22).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from driver.paths import ROOT

PROBES = {"std::call_once": """\
#include <chrono>
#include <mutex>
#include <thread>
#include <version>
int value = 0;
std::once_flag flag;
int main() {
  std::thread first([] { std::call_once(flag, [] { value = 1; }); });
  std::thread second([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // only orders the two
    std::call_once(flag, [] { value = 2; });
    if (value != 1) __builtin_trap();
  });
  first.join();
  second.join();
}
""", "std::barrier": """\
#include <version>
#if defined(__cpp_lib_barrier)
#include <barrier>
#include <thread>
int slot[3];
int main() {
  std::barrier meeting(3);
  std::thread threads[3];
  for (int i = 0; i < 3; ++i)
    threads[i] = std::thread([&meeting, i] {
      slot[i] = i + 1;
      meeting.arrive_and_wait();
      if (slot[0] + slot[1] + slot[2] != 6) __builtin_trap();
    });
  for (auto& t : threads) t.join();
}
#else
int main() {}  // no std::barrier in this mode: nothing to see
#endif
"""}
ANNOTATIONS = ROOT / "suite" / "support" / "tsan" / "libcxx_runtime.cpp"
ANNOTATED_SYMBOLS = ROOT / "suite" / "support" / "tsan" / "libcxx_runtime.symbols"
# Which library the build links, from its own macros.
IDENTIFY = """\
#include <version>
#include <cstdio>
int main() {
#if defined(_LIBCPP_VERSION)
  std::printf("libc++ %d\\n", _LIBCPP_VERSION);
#elif defined(__GLIBCXX__)
  std::printf("libstdc++ %d\\n", __GLIBCXX__);
#else
  std::printf("unknown\\n");
#endif
}
"""
RUNS = 3
RACE = "ThreadSanitizer: data race"
REMEDY = ("build a libc++ instrumented for TSan from the distribution's source with "
          "./conformance runtime libc++ --cxx {cxx} (used by every later TSan run of this "
          "compiler), or link the annotations with --tsan-runtime annotated; the asan and none "
          "tiers judge regardless")


def _build(compiler: str, source: str, flags: list[str], directory: Path, name: str) -> tuple[Path | None, str]:
    src = directory / f"{name}.cpp"
    src.write_text(source)
    exe = directory / name
    built = subprocess.run([compiler, *flags, str(src), "-o", str(exe)], capture_output=True, text=True)
    return (exe if built.returncode == 0 else None), built.stderr


def identify(compiler: str, compile_flags: list[str], link_flags: list[str]) -> str:
    """"libc++ 22.1.8" (from _LIBCPP_VERSION 220108), "libstdc++ 20230528" or "unknown"."""
    with tempfile.TemporaryDirectory(prefix="saferecl-runtime-") as tmp:
        exe, _ = _build(compiler, IDENTIFY, [*compile_flags, *link_flags], Path(tmp), "identify")
        if exe is None:
            return "unknown"
        ran = subprocess.run([str(exe)], capture_output=True, text=True)
    name, _, number = ran.stdout.strip().partition(" ")
    if name == "libc++" and number.isdigit() and len(number) >= 5:
        number = f"{int(number[:-4])}.{int(number[-4:-2])}.{int(number[-2:])}"
    return f"{name} {number}".strip() or "unknown"


def annotation_flags() -> list[str]:
    """The annotations' source and its --wrap link options (as suite/CMakeLists.txt links them)."""
    symbols = ANNOTATED_SYMBOLS.read_text().split()
    return [str(ANNOTATIONS), *(f"-Wl,--wrap={s}" for s in symbols)]


def tsan_visibility(compiler: str, compile_flags: list[str], link_flags: list[str],
                    annotated: bool = False) -> dict:
    """The probes under TSan with the build's flags (and the annotations when `annotated`):
    {"instrumented": True/False/None, "racy_runs": "N of M", "raced": [probe names]}, where
    "instrumented" says whether TSan saw every edge. None when a probe could not be built
    (the reason is given)."""
    raced, racy, runs = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="saferecl-runtime-") as tmp:
        flags = [*compile_flags, "-fsanitize=thread", "-O1", "-g", "-pthread",
                 *(annotation_flags() if annotated else []), *link_flags]
        env = dict(os.environ, TSAN_OPTIONS="exitcode=66")
        for n, (name, source) in enumerate(PROBES.items()):
            exe, error = _build(compiler, source, flags, Path(tmp), f"probe{n}")
            if exe is None:
                return {"instrumented": None, "probe": name,
                        "detail": f"the {name} probe did not build: " + (error.strip().splitlines() or ["?"])[0]}
            found = sum(RACE in subprocess.run([str(exe)], capture_output=True, text=True, env=env).stderr
                        for _ in range(RUNS))
            racy, runs = racy + found, runs + RUNS
            if found:
                raced.append(name)
    return {"instrumented": racy == 0, "probe": ", ".join(PROBES), "racy_runs": f"{racy} of {runs}",
            "raced": raced}
