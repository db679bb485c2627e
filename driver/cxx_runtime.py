"""Which C++ runtime a TSan run links, and whether TSan can see inside it.

With libstdc++ TSan sees every edge the runtime makes (its synchronization runs on
intercepted pthread calls). With libc++, the compiled part of the runtime completes
std::call_once and counts std::barrier's arrivals; unless it was built with
-fsanitize=thread, TSan misses those edges (driver/runtime_probe.py) and reports races a
correct program does not have. `--tsan-runtime` says what to do about it:

  instrumented  the libc++ that `./conformance runtime libc++` built from the distribution's
                source of the compiler's LLVM (driver/libcxx_build.py); an error naming that
                command when none is cached
  annotated     the uninstrumented runtime, linked with the wrappers of
                suite/support/tsan/libcxx_runtime.cpp, which add the missing edges through
                TSan's interface (for a prebuilt runtime that cannot be rebuilt)
  plain         neither: a race report that runs through the runtime is INCONCLUSIVE
                (reports/tsan_evidence.py), and the implementation is not judged in the tier
  auto          (default) instrumented when one is cached for the compiler, else annotated
                when the probe sees the runtime hide an edge, else nothing (TSan sees it)

Only Debian's libc++ of a clang++-N is swapped for the instrumented one; a library given
with --stdlib-include/--stdlib-libdir is the user's own, and only the probe speaks of it.
"""

from __future__ import annotations

from dataclasses import replace

from driver import compilers, libcxx_build, runtime_probe
from driver.errors import EnvironmentProblem, UsageError
from driver.environment import ensure_packages
from driver.language import Language, Request, debian_packages, resolve

CHOICES = ("auto", "instrumented", "annotated", "plain")


def build_command(compiler: str) -> str:
    return f"./conformance runtime libc++ --cxx {compiler}"


def choose(request: Request, sanitizer: str, compiler_command: str | None, wanted: str = "auto") -> Request:
    """The mode with the runtime `wanted` in place (the request unchanged when the choice
    does not apply: another tier, another library, a library of the user's)."""
    if wanted not in CHOICES:
        raise UsageError(f"--tsan-runtime {wanted}: one of {', '.join(CHOICES)}")
    if sanitizer != "tsan" or request.stdlib != "libc++" or request.include_dirs or request.library_dirs:
        if wanted in ("instrumented", "annotated"):
            raise UsageError(f"--tsan-runtime {wanted} applies to the tsan tier with --stdlib libc++ "
                             "(Debian's libc++ of a clang++-N)")
        return request
    if wanted == "plain":
        return request
    compiler = compilers.resolve(compiler_command or compilers.PRESET_COMPILER)
    if wanted in ("auto", "instrumented"):
        home = cached_runtime(compiler.path)
        if home is not None:
            return replace(request, include_dirs=tuple(libcxx_build.include_dirs(home)),
                           library_dirs=tuple(libcxx_build.library_dirs(home)), instrumented=True)
        if wanted == "instrumented":
            raise EnvironmentProblem(f"no libc++ instrumented for TSan is cached for {compiler.command}: "
                                     f"build it with {build_command(compiler.command)}")
    if wanted == "annotated":
        return replace(request, annotations=True)
    ensure_packages(debian_packages(request, compiler.command))  # Debian's libc++ of this clang
    mode = resolve(request, compiler.path)
    seen = runtime_probe.tsan_visibility(compiler.path, mode.compile_flags(), mode.link_flags())
    return replace(request, annotations=seen.get("instrumented") is False)


def cached_runtime(compiler_path: str):
    """The instrumented libc++ cached for this compiler's toolchain, or None (also for a
    compiler that is not Debian's)."""
    try:
        return libcxx_build.cached(libcxx_build.toolchain_of(compiler_path), "tsan")
    except EnvironmentProblem:
        return None


def describe(mode: Language, compiler_command: str, compiler_path: str, sanitizer: str) -> dict:
    """run.json's cxx_runtime: the library, and in the TSan tier whether TSan sees it and
    how ("how" is the run header's and the report's words)."""
    runtime = {"library": runtime_probe.identify(compiler_path, mode.compile_flags(), mode.link_flags())}
    if sanitizer != "tsan":
        return runtime
    runtime |= runtime_probe.tsan_visibility(compiler_path, mode.compile_flags(), mode.link_flags(),
                                             annotated=mode.annotations)
    runtime["annotations"] = mode.annotations
    if mode.annotations:
        # The probe above ran with the annotations: what it measured is them, not the
        # runtime. Say so, with what the runtime alone does, and name the better remedy.
        runtime["probe_with"] = "the annotations"
        alone = runtime_probe.tsan_visibility(compiler_path, mode.compile_flags(), mode.link_flags())
        runtime["racy_runs_without_annotations"] = alone.get("racy_runs", "?")
        if not mode.include_dirs and cached_runtime(compiler_path) is None:
            runtime["better_remedy"] = (
                f"no libc++ instrumented for TSan is cached for {compiler_command}, so the run uses the "
                f"link-time annotations, which cover std::call_once and std::barrier only; build the "
                f"instrumented runtime once with {build_command(compiler_command)} and every later "
                f"TSan run of this compiler uses it")
    if mode.instrumented:
        runtime["how"] = f"instrumented for TSan (built by ./conformance runtime: {mode.library_dirs[0]})"
    elif mode.annotations:
        runtime["how"] = ("not instrumented; annotated for TSan (std::call_once, std::barrier: "
                          "suite/support/tsan/libcxx_runtime.cpp)")
    elif runtime["instrumented"] is False:
        runtime["how"] = "not instrumented, not annotated: TSan cannot see its synchronization"
        runtime["remedy"] = runtime_probe.REMEDY.format(cxx=compiler_command)
    elif runtime["instrumented"]:
        runtime["how"] = "TSan sees its synchronization"
    else:
        runtime["how"] = f"unknown ({runtime.get('detail')})"
    return runtime


def header_lines(runtime: dict) -> list[str]:
    """The run header's lines about the runtime."""
    if "how" not in runtime:
        return [f"C++ runtime: {runtime['library']}"]
    measured = (f" with {runtime['probe_with']} (without them: {runtime.get('racy_runs_without_annotations', '?')})"
                if runtime.get("probe_with") else "")
    lines = [f"C++ runtime: {runtime['library']}, {runtime['how']}; the probe ({runtime.get('probe', '?')}) "
             f"raced in {runtime.get('racy_runs', '?')} runs{measured}"]
    if runtime.get("better_remedy"):
        lines.append("NOTE: " + runtime["better_remedy"])
    if runtime.get("remedy"):
        lines.append("WARNING: a TSan report that runs through the runtime is INCONCLUSIVE, not a failure; "
                     + runtime["remedy"])
    if runtime.get("annotations") and runtime.get("instrumented") is False:
        lines.append(f"WARNING: the annotations did not hide every edge: {', '.join(runtime.get('raced', []))} "
                     "still raced")
    return lines
