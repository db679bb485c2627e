"""./conformance list: every implementation, available with its capabilities, or why not."""

from __future__ import annotations

from driver.build import BuildTree, tree_dir
from driver.console import say
from driver.environment import default_selection, ensure_packages, packages_for
from driver.errors import EXIT_OK
from driver.options import std_definitions


def command(args) -> int:
    impls = default_selection()
    ensure_packages(packages_for(impls))
    build = BuildTree(args.sanitizer, impls, std_definitions(args.std_include, args.std_flags,
                                                             args.std_libs),
                      tree_dir(args.sanitizer))
    build.configure()
    for impl in build.implementations():
        if impl["available"]:
            extra = f"; limits: {impl['limits']}" if impl.get("limits") else ""
            say(f"{impl['name']:<10} available    {', '.join(impl['capabilities'])}"
                f"  [{impl['version']}]{extra}")
        else:
            say(f"{impl['name']:<10} unavailable  {impl['reason']}")
    return EXIT_OK
