"""Which tests of the index a run's CTest arguments selected (`./conformance run -- -R X`).

A test that was built but that CTest's arguments left out is simply absent from junit.xml; a
test that never reached CTest (its adapter lacks a capability, so it was never registered)
is absent too, whatever the arguments said. To say only what is known, the reports call a
test the selection left out NOT RUN, and for the second kind they need to know whether the
selection would have taken it: this module applies CTest's selection options to an index
entry, the way CTest applies them to a registered test (name regexes -R/-E, label regexes
-L/-LE, with the labels suite/cmake/discover_tests.cmake and SafereclBattery.cmake give).

Regexes are CTest's (CMake's) dialect; Python's `re.search` agrees with it on what the
suite's names and labels need (anchors, classes, alternation, escapes). Repeated -L options
must all match, as in CTest 3.25.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reports.index import IndexEntry

# CTest's option -> (which list, needs a value)
_OPTIONS = {"-R": "include_names", "--tests-regex": "include_names",
            "-E": "exclude_names", "--exclude-regex": "exclude_names",
            "-L": "include_labels", "--label-regex": "include_labels",
            "-LE": "exclude_labels", "--label-exclude": "exclude_labels"}


@dataclass
class Selection:
    include_names: list[str] = field(default_factory=list)
    exclude_names: list[str] = field(default_factory=list)
    include_labels: list[str] = field(default_factory=list)
    exclude_labels: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.include_names or self.exclude_names or self.include_labels or self.exclude_labels)

    def describe(self) -> str:
        """How the arguments read on a command line: "-R saferecl\\.hp -LE tier=qoi"."""
        words = []
        for option, values in (("-R", self.include_names), ("-E", self.exclude_names),
                               ("-L", self.include_labels), ("-LE", self.exclude_labels)):
            words += [f"{option} {v}" for v in values]
        return " ".join(words)


def parse(ctest_args: list[str] | None) -> Selection:
    """The selection options among CTest arguments (the others, e.g. -j or --repeat, select
    nothing); both "-R X" and "-R=X" / "--tests-regex=X" spellings."""
    selection = Selection()
    args = [a for a in (ctest_args or []) if isinstance(a, str)]
    n = 0
    while n < len(args):
        word = args[n]
        option, _, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if option in _OPTIONS:
            if not value and n + 1 < len(args):
                n += 1
                value = args[n]
            getattr(selection, _OPTIONS[option]).append(value)
        n += 1
    return selection


def labels_of(entry: IndexEntry) -> list[str]:
    """The CTest labels the build gives the entry's test."""
    labels = [f"impl={entry.implementation}", f"tier={entry.tier}", f"kind={entry.kind}",
              f"group={entry.group}"]
    if entry.source:
        labels.append(f"src={entry.source}")
    return labels


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return pattern in text


def selects(selection: Selection, entry: IndexEntry) -> bool:
    """Would CTest, given these arguments, run the entry's test (were it registered)?"""
    name = entry.id
    if selection.include_names and not any(_search(p, name) for p in selection.include_names):
        return False
    if any(_search(p, name) for p in selection.exclude_names):
        return False
    labels = labels_of(entry)
    for pattern in selection.include_labels:  # several -L: each must match some label
        if not any(_search(pattern, label) for label in labels):
            return False
    for pattern in selection.exclude_labels:
        if any(_search(pattern, label) for label in labels):
            return False
    return True
