"""./conformance runtime libc++: a libc++ instrumented for TSan, from the distribution's source
of the compiler's own LLVM (driver/libcxx_build.py), into the cache that every later TSan run
with --stdlib libc++ and the same compiler uses (driver/cxx_runtime.py). Progress goes to
stderr; stdout gets only the runtime's directory."""

from __future__ import annotations

import sys

from driver import compilers, libcxx_build
from driver.errors import EXIT_OK, UsageError


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def command(args) -> int:
    compiler = compilers.resolve(compilers.requested(args.cxx) or compilers.PRESET_COMPILER)
    if args.source is not None and not args.source.is_file():
        raise UsageError(f"--source {args.source}: no such file")
    toolchain = libcxx_build.toolchain_of(compiler.path)
    say(f"saferecl: libc++ {toolchain.upstream} instrumented for TSan, from "
        f"{toolchain.source_package} {toolchain.version} (the source of {toolchain.binary_package}: {compiler.version})")
    home = libcxx_build.build_runtime(toolchain, args.sanitizer, args.jobs, say, args.source)
    facts = libcxx_build.stamp(home)
    say(f"   built in {facts['build_seconds']} s on {facts['built']}; "
        f"{facts['installed_bytes'] / 1e6:.1f} MB installed")
    say(f"   used by: --cxx {compiler.command} --stdlib libc++ --sanitizer tsan (--tsan-runtime auto or instrumented)")
    print(home)
    return EXIT_OK
