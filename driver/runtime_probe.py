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

The probe: thread A runs a std::call_once whose callable writes a plain int; thread B comes
later (a sleep only orders them: B must take call_once's inline fast path, which
synchronizes with A's completion inside the runtime and with nothing else) and reads it.
With the edge visible there is no race; without it TSan reports one every time (measured:
6 of 6 runs with Debian's static libc++ 22, 0 of 6 with libstdc++ 12 under clang 14, 22 and
g++ 12).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

PROBE = """\
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
"""
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
AFFECTED = ("a FAIL whose TSan report has a stack frame inside the C++ runtime (std::call_once, "
            "std::barrier, std::latch, std::condition_variable waits) may be a race TSan "
            "invented because it could not see the runtime's synchronization")
REMEDY = ("use a libc++ built with TSan (LLVM runtimes build: -DLLVM_ENABLE_RUNTIMES='libcxx;libcxxabi' "
          "-DLLVM_USE_SANITIZER=Thread, then --stdlib libc++ --stdlib-include/--stdlib-libdir), "
          "or judge races in the asan and none tiers' verdicts instead")


def _build(compiler: str, source: str, flags: list[str], directory: Path, name: str) -> tuple[Path | None, str]:
    src = directory / f"{name}.cpp"
    src.write_text(source)
    exe = directory / name
    built = subprocess.run([compiler, *flags, str(src), "-o", str(exe)], capture_output=True, text=True)
    return (exe if built.returncode == 0 else None), built.stderr


def identify(compiler: str, compile_flags: list[str], link_flags: list[str]) -> str:
    """"libc++ 220108", "libstdc++ 20230528" or "unknown"."""
    with tempfile.TemporaryDirectory(prefix="saferecl-runtime-") as tmp:
        exe, _ = _build(compiler, IDENTIFY, [*compile_flags, *link_flags], Path(tmp), "identify")
        if exe is None:
            return "unknown"
        ran = subprocess.run([str(exe)], capture_output=True, text=True)
    return ran.stdout.strip() or "unknown"


def tsan_visibility(compiler: str, compile_flags: list[str], link_flags: list[str]) -> dict:
    """The probe under TSan with the build's flags: {"instrumented": True/False/None, ...}.
    None when the probe could not be built (the reason is given)."""
    with tempfile.TemporaryDirectory(prefix="saferecl-runtime-") as tmp:
        flags = [*compile_flags, "-fsanitize=thread", "-O1", "-g", "-pthread", *link_flags]
        exe, error = _build(compiler, PROBE, flags, Path(tmp), "call_once")
        if exe is None:
            return {"instrumented": None, "probe": "std::call_once",
                    "detail": "the probe did not build: " + (error.strip().splitlines() or ["?"])[0]}
        env = dict(os.environ, TSAN_OPTIONS="exitcode=66")
        racy = sum(RACE in subprocess.run([str(exe)], capture_output=True, text=True, env=env).stderr
                   for _ in range(RUNS))
    result = {"instrumented": racy == 0, "probe": "std::call_once completed by one thread, read by another",
              "racy_runs": f"{racy} of {RUNS}"}
    if racy:
        result |= {"affected": AFFECTED, "remedy": REMEDY}
    return result


def header_line(runtime: dict) -> str | None:
    """The run header's warning, or None when TSan sees the runtime."""
    if runtime.get("instrumented") is not False:
        return None
    return (f"TSan cannot see the C++ runtime's synchronization ({runtime.get('library', 'the runtime')} "
            f"is not instrumented; probe raced in {runtime['racy_runs']} runs): {runtime['affected']}; "
            f"{runtime['remedy']}")
