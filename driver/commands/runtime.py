"""./conformance runtime libc++: a libc++ instrumented for TSan, from the distribution's source
of the compiler's own LLVM (driver/libcxx_build.py), into the cache that every later TSan run
with --stdlib libc++ and the same compiler uses (driver/cxx_runtime.py). Progress goes to
stderr; stdout gets only the runtime's directory."""

from __future__ import annotations

import sys
import time

from driver import compilers, libcxx_build
from driver.errors import EXIT_OK, UsageError


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def wall_line(facts: dict, seconds: float, cached: bool) -> str:
    """What the command says about time: its own wall time, start to end, and for a build the
    wall time of each step (the stamp's "stages"); a cached runtime says when it was built."""
    if cached:
        return (f"   found in the cache in {seconds:.1f} s wall time (built on {facts.get('built', '?')} "
                f"in {facts.get('build_seconds', '?')} s)")
    stages = ", ".join(f"{name} {value:.1f} s" for name, value in (facts.get("stages") or {}).items())
    return (f"   built in {seconds:.1f} s wall time" + (f" ({stages})" if stages else "")
            + f" on {facts.get('built', '?')}; {facts.get('installed_bytes', 0) / 1e6:.1f} MB installed")


def command(args) -> int:
    started = time.monotonic()
    compiler = compilers.resolve(compilers.requested(args.cxx) or compilers.PRESET_COMPILER)
    if args.source is not None and not args.source.is_file():
        raise UsageError(f"--source {args.source}: no such file")
    toolchain = libcxx_build.toolchain_of(compiler.path)
    say(f"saferecl: libc++ {toolchain.upstream} instrumented for TSan, from "
        f"{toolchain.source_package} {toolchain.version} (the source of {toolchain.binary_package}: {compiler.version})")
    cached = libcxx_build.cached(toolchain, args.sanitizer) is not None
    home = libcxx_build.build_runtime(toolchain, args.sanitizer, args.jobs, say, args.source)
    say(wall_line(libcxx_build.stamp(home), time.monotonic() - started, cached))
    say(f"   used by: --cxx {compiler.command} --stdlib libc++ --sanitizer tsan (--tsan-runtime auto or instrumented)")
    print(home)
    return EXIT_OK
