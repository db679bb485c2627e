"""./conformance vendor-library: the reference built as a standard library vendor's compiled
part, for the README's recipes that run the vendor-style tree (adapters/std/selftest/include)
through --impl std.

The library must be built in the run's own tier, compiler and mode (a TSan run linking an
uninstrumented archive, or an archive of the other standard library, tests something else),
so the command takes the run's --sanitizer, --cxx, --std, --stdlib and --stdlib-* options and
prints only the archive's path on stdout: LIB=$(./conformance vendor-library ...)."""

from __future__ import annotations

import sys

from driver.commands.test import build_vendor_library
from driver.errors import EXIT_ENVIRONMENT, EXIT_OK


def command(args) -> int:
    library = build_vendor_library(args.sanitizer, args.jobs)
    if library is None:
        print("conformance: the vendor library did not build (output above)", file=sys.stderr)
        return EXIT_ENVIRONMENT
    print(library)
    return EXIT_OK
