"""./conformance vendor-library: the reference built as a standard library vendor's compiled
part, for the README's recipes that run the vendor-style tree (adapters/std/selftest/include)
through --impl std.

The library must be built in the run's own tier, compiler and mode (a TSan run linking an
uninstrumented archive, or an archive of the other standard library, tests something else),
so the command takes the run's --sanitizer, --cxx, --std, --stdlib and --stdlib-* options and
prints only the archive's path on stdout: LIB=$(./conformance vendor-library ...)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from driver.build import BuildTree, tree_dir
from driver.errors import EXIT_ENVIRONMENT, EXIT_OK
from driver.language import Request
from driver.paths import BUILD, ROOT

VENDOR_ROOT = BUILD / "std-selftest" / "vendor"


def build_vendor_library(sanitizer: str, jobs: int, compiler: str | None = None,
                         mode: Request | None = None) -> Path | None:
    """The reference library built as the vendor tree's own library, in the tier, compiler and
    mode given (default: the command's), under VENDOR_ROOT/<tree>/: the library the README's
    recipes link with --std-libs, and the one the self-test's std steps link. None when it
    did not build (the build output is on stderr)."""
    vendor = BuildTree(sanitizer, ["reference"], {}, tree_dir(sanitizer, VENDOR_ROOT),
                       compiler_command=compiler, mode=mode)
    vendor.configure()
    built = subprocess.run(["cmake", "--build", str(vendor.dir), "--target", "saferecl_reference",
                            "-j", str(jobs)], cwd=ROOT, capture_output=True, text=True)
    library = vendor.dir / "reference-impl" / "libsaferecl_reference.a"
    if built.returncode != 0 or not library.is_file():
        sys.stderr.write(built.stdout + built.stderr)
        return None
    return library


def command(args) -> int:
    library = build_vendor_library(args.sanitizer, args.jobs)
    if library is None:
        print("conformance: the vendor library did not build (output above)", file=sys.stderr)
        return EXIT_ENVIRONMENT
    print(library)
    return EXIT_OK
