"""The test index, as the driver needs it.

A configured build tree has its index (BuildTree.index(): suite/cmake/index_tests.py wrote
it at configure time), and a report directory gets a copy. The mutant sweep must choose the
sources to compile before its tree is configured, so `suite_tests` asks the same writer to
scan the suite directly: one parser, used twice, never a second one.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import cache

from driver.paths import INDEX_WRITER, SUITE


@cache
def index_writer():
    """suite/cmake/index_tests.py as a module (it is a script CMake runs, not a package)."""
    spec = importlib.util.spec_from_file_location("saferecl_index_tests", INDEX_WRITER)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def suite_tests() -> dict[str, list[str]]:
    """suite-relative source -> the names of the tests it defines."""
    writer = index_writer()
    names = {}
    for path in sorted([*SUITE.glob("saferecl.*/**/*.cpp"), *SUITE.glob("stress/**/*.cpp")]):
        rel = str(path.relative_to(SUITE))
        source = writer.scan_source(rel, path.read_text(errors="replace"))
        if source.cases:
            names[rel] = [c.name for c in source.cases]
    return names


def sources_regex(impl: str, patterns: list[str], tests: dict[str, list[str]]) -> str:
    """A SAFERECL_SOURCES regex naming exactly the sources that define a test matched by
    one of the ctest -R `patterns` (CTest names are "<impl>/<name>")."""
    matchers = [re.compile(p) for p in patterns]
    wanted = [src for src, names in tests.items()
              if any(m.search(f"{impl}/{n}") for m in matchers for n in names)]
    return "^(" + "|".join(re.escape(src) for src in wanted) + ")$" if wanted else "^$"
